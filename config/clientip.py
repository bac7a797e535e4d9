"""The client's address, as every limit keyed on an address reads it (sign-in limits, rate limits, throttles).

With ``CARDRANK_TRUSTED_PROXY_COUNT = 0`` (the default) the client is the peer
of the connection, ``REMOTE_ADDR``: ``X-Forwarded-For`` is a header any
client can write, and is ignored.

Behind N trusted proxies (N > 0), each of which appends the address it
received the request from to ``X-Forwarded-For`` (nginx's
``$proxy_add_x_forwarded_for``, HAProxy's ``option forwardfor``), the client
is the N-th entry from the right: the one the outermost trusted proxy wrote.
Entries left of it were written by the client itself and are ignored. A
header with fewer than N entries, or a garbled entry there, did not come
through all N proxies (a request sent to the application directly, or a
proxy set up differently): then ``REMOTE_ADDR`` is the client, which is what
it really is in the first case.

This is the right-to-left reading of django-ipware's ``proxy_count``, DRF's
``NUM_PROXIES`` and Werkzeug's ``ProxyFix(x_for=N)``; it is not left to
either library, because ipware's default picks the leftmost *public* entry
(which the client writes) and DRF's falls back to the leftmost entry when
the header is short.
"""

import ipaddress

from django.conf import settings


def client_ip(request) -> str:
    """The client's address: ``REMOTE_ADDR``, or the trusted proxies' entry of ``X-Forwarded-For``."""
    remote_addr = request.META.get("REMOTE_ADDR", "")
    count = settings.CARDRANK_TRUSTED_PROXY_COUNT
    if count <= 0:
        return remote_addr
    entries = [entry.strip() for entry in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    entries = [entry for entry in entries if entry]
    if len(entries) < count:
        return remote_addr
    try:
        return str(ipaddress.ip_address(entries[-count]))
    except ValueError:
        return remote_addr


def sign_in_client_ip(request) -> str | None:
    """The address a sign-in limit counts: ``client_ip``, with an IPv6 address widened to its /64.

    One IPv6 host usually holds a whole /64 and can change its address within
    it at will; django-ratelimit masks IPv6 addresses to /64 for the same
    reason (``RATELIMIT_IPV6_MASK``). Stored as the network's first address,
    so django-axes' address column (an IP address field) takes it.
    """
    address = client_ip(request)
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return None
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is the IPv4 client 192.0.2.1
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False).network_address)
    return str(parsed)
