"""Request bodies over their cap are refused before anything reads them (config.bodies).

Each request goes through Django's test client, so through every middleware and the URLconf, with its
body in a *counting input*: the WSGI input stream, counting the bytes read from it. A refused body with a
``Content-Length`` over the cap is read not at all, and nothing past the middleware ran: no query, no
row changed, no CSRF page. A chunked body (no ``Content-Length``) is read to one byte past the cap.

- *the cap*: ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (from ``CARDRANK_MAX_BODY_BYTES``), set small here so that
  the bodies stay small; admin's import upload has ``CARDRANK_IMPORT_MAX_BYTES`` more.
"""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import ImportRun
from leagues.models import Game, Player
from tests.factories import RefereeFactory
from tests.matches.rows import rows_snapshot

pytestmark = pytest.mark.django_db

CAP = 20_000
IMPORT_CAP = 100_000
IMPORT_ADD = reverse("admin:games_importrun_add")


class CountingInput(io.BytesIO):
    """A WSGI input stream that counts the bytes read from it."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size=-1):
        data = super().read(size)
        self.bytes_read += len(data)
        return data

    def readline(self, size=-1):
        data = super().readline(size)
        self.bytes_read += len(data)
        return data


@pytest.fixture
def cap(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = CAP
    settings.CARDRANK_IMPORT_MAX_BYTES = IMPORT_CAP
    return CAP


def send(client, path: str, body: bytes, content_type: str, *, chunked: bool = False, **extra):
    """POST ``body`` through a counting input: announced by Content-Length, or chunked without one."""
    stream = CountingInput(body)
    environ = {"wsgi.input": stream, "CONTENT_TYPE": content_type, **extra}
    if chunked:
        environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    else:
        environ["CONTENT_LENGTH"] = str(len(body))
    response = client.generic("POST", path, b"", content_type=content_type, **environ)
    return response, stream


def json_of_length(length: int, **fields) -> bytes:
    """A JSON object of ``fields`` padded with spaces to exactly ``length`` bytes."""
    text = json.dumps(fields).encode()
    return text + b" " * (length - len(text))


def multipart_of_length(length: int, **fields) -> bytes:
    """A multipart form of ``fields`` whose one file fills the body to exactly ``length`` bytes."""
    empty = encode_multipart(BOUNDARY, {**fields, "file": SimpleUploadedFile("a.csv", b"")})
    data = b"x" * (length - len(empty))
    body = encode_multipart(BOUNDARY, {**fields, "file": SimpleUploadedFile("a.csv", data)})
    assert len(body) == length
    return body


def assert_refused_unread(response, stream, *, api: bool):
    assert response.status_code == 413, response.content[:300]
    if api:
        assert response["Content-Type"] == "application/json"
        assert response.json() == {"detail": f"The request body is too large: at most {CAP:,} bytes."}
    else:
        assert response["Content-Type"].startswith("text/html")
        page = response.content.decode()
        assert "Request too large" in page
        assert f"at most {CAP:,} bytes" in page
    assert stream.bytes_read == 0


@pytest.fixture
def page_client(referee):
    client = Client(raise_request_exception=False)
    client.force_login(referee)
    return client


def test_a_page_body_just_over_the_cap_is_refused_unread(cap, reference_data, page_client):
    body = f"name={'x' * CAP}".encode()[: CAP + 1]
    before = rows_snapshot()
    with CaptureQueriesContext(connection) as queries:
        response, stream = send(page_client, "/results/players/", body, "application/x-www-form-urlencoded")
    assert_refused_unread(response, stream, api=False)
    assert len(queries) == 0  # no session, no user, no view
    assert rows_snapshot() == before


def test_an_api_body_just_over_the_cap_is_refused_unread(cap, referee_client):
    body = json_of_length(CAP + 1, name="Ann Over")
    with CaptureQueriesContext(connection) as queries:
        response, stream = send(referee_client, "/api/players/", body, "application/json")
    assert_refused_unread(response, stream, api=True)
    assert len(queries) == 0  # the token was never looked up: DRF's view never ran
    assert not Player.objects.filter(name="Ann Over").exists()


def test_an_api_body_at_the_cap_is_accepted(cap, referee_client):
    response, stream = send(referee_client, "/api/players/", json_of_length(CAP, name="Ann Under"), "application/json")
    assert response.status_code == 201, response.content[:300]
    assert stream.bytes_read == CAP
    assert Player.objects.filter(name="Ann Under").exists()


def test_a_page_body_under_the_cap_is_read(cap, reference_data, page_client):
    body = b"name=Bea+Under&" + b"x" * (CAP - 20)
    response, stream = send(page_client, "/results/players/", body, "application/x-www-form-urlencoded")
    assert response.status_code != 413, (response.status_code, response.content[:500])
    assert stream.bytes_read == len(body)


def test_a_multipart_body_with_only_a_csrf_cookie_is_refused_unread(cap, reference_data):
    """The issue's 50 MB multipart POST was read whole, to a temporary file, before the CSRF check said 403."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.cookies["csrftoken"] = "a" * 32
    body = multipart_of_length(CAP + 1, name="Cy")
    with CaptureQueriesContext(connection) as queries:
        response, stream = send(client, "/results/players/", body, MULTIPART_CONTENT)
    assert_refused_unread(response, stream, api=False)
    assert len(queries) == 0
    # Under the cap the same post is read, and meets the CSRF check.
    body = multipart_of_length(CAP, name="Cy")
    response, stream = send(client, "/results/players/", body, MULTIPART_CONTENT)
    assert response.status_code == 403, response.content[-3000:]
    assert stream.bytes_read == CAP


@pytest.mark.parametrize("path", ["/api/players/", "/results/players/"])
def test_a_chunked_body_over_the_cap_is_read_only_to_the_cap(cap, referee_client, path):
    body = json_of_length(10 * CAP, name="Dee Chunked")
    response, stream = send(referee_client, path, body, "application/json", chunked=True)
    assert response.status_code == 413, response.content[:300]
    assert f"at most {CAP:,} bytes" in response.content.decode()
    assert stream.bytes_read == CAP + 1
    assert not Player.objects.filter(name="Dee Chunked").exists()


def test_a_chunked_body_under_the_cap_is_read_whole(cap, referee_client):
    """Django's WSGI request read a body without Content-Length as empty (a 400 "name required")."""
    body = json_of_length(CAP, name="Eve Chunked")
    response, stream = send(referee_client, "/api/players/", body, "application/json", chunked=True)
    assert response.status_code == 201, response.content[:300]
    assert stream.bytes_read == CAP
    assert Player.objects.filter(name="Eve Chunked").exists()


@pytest.fixture
def importer_client(reference_data):
    user = RefereeFactory(is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def test_the_import_upload_has_the_imports_cap(cap, importer_client, django_capture_on_commit_callbacks):
    """A file over the general cap but under the import's is uploaded; the general cap holds elsewhere; a body
    over the import's cap (and the general one for the form's other fields) is refused unread."""
    fields = {"game": Game.objects.get(slug="slaps").pk}
    body = multipart_of_length(IMPORT_CAP, **fields)
    with django_capture_on_commit_callbacks(execute=True):
        response, stream = send(importer_client, IMPORT_ADD, body, MULTIPART_CONTENT)
    assert response.status_code == 302, response.content[:2000]
    assert stream.bytes_read == IMPORT_CAP
    assert ImportRun.objects.count() == 1

    response, stream = send(importer_client, "/results/players/", body, MULTIPART_CONTENT)
    assert_refused_unread(response, stream, api=False)
    with django_capture_on_commit_callbacks(execute=True):
        response, stream = send(importer_client, IMPORT_ADD, body, MULTIPART_CONTENT, chunked=True)
    assert response.status_code == 302, response.content[:2000]
    assert ImportRun.objects.count() == 2

    body = multipart_of_length(IMPORT_CAP + CAP + 1, **fields)
    response, stream = send(importer_client, IMPORT_ADD, body, MULTIPART_CONTENT)
    assert response.status_code == 413
    assert f"at most {IMPORT_CAP + CAP:,} bytes" in response.content.decode()
    assert stream.bytes_read == 0
    assert ImportRun.objects.count() == 2
