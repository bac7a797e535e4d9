"""A real SMTP server for the notices' tests (aiosmtpd on 127.0.0.1, a free port), and Django sending to it
through its SMTP backend, as a deployment with EMAIL_HOST does."""

import email
from email import policy

import pytest
from aiosmtpd.controller import Controller

from benchmarks.stack import free_port


class Inbox:
    """The server's handler: every message it accepted, parsed; ``refuse`` answers the next N messages
    with a temporary failure (451), as a busy server does."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = 0
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        if self.refuse:
            self.refuse -= 1
            self.refused += 1
            return "451 4.3.0 Try again later"
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"

    def to(self, address: str) -> list:
        return [message for message in self.messages if message["To"] == address]


class SmtpServer:
    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = None

    def start(self) -> None:
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture
def smtp(settings):
    server = SmtpServer()
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = server.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 5
    settings.CARDRANK_SITE_URL = "https://ranks.example.org"
    yield server
    server.stop()


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message) -> str:
    return message.get_body(preferencelist=("html",)).get_content()
