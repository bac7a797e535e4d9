"""Webhooks in admin: added through the one service (bad input refused by field, nothing stored), the secret
in clear only on the add form, the list's last delivery, a test event, and deliveries read-only with
"retry now"."""

import pytest
from django.test import Client

from hooks.models import Webhook, WebhookDelivery
from tests.factories import AdminFactory
from tests.hooks.conftest import SECRET

pytestmark = pytest.mark.django_db

INLINE = {"deliveries-TOTAL_FORMS": "0", "deliveries-INITIAL_FORMS": "0"}


@pytest.fixture
def admin_client(reference_data):
    client = Client()
    user = AdminFactory()
    client.force_login(user)
    client.user = user
    return client


def form(**fields):
    return {
        "name": "Club chat",
        "url": "https://hooks.example.org/in",
        "secret": SECRET,
        "on_result_rated": "on",
        "on_list_published": "on",
        "league": "",
        "active": "on",
        **INLINE,
        **fields,
    }


def test_the_add_form_offers_a_generated_secret(admin_client):
    page = admin_client.get("/admin/hooks/webhook/add/")
    assert page.status_code == 200
    secret = page.context["adminform"].form.fields["secret"].initial
    assert len(secret) >= 16
    assert secret in page.content.decode()
    assert secret != admin_client.get("/admin/hooks/webhook/add/").context["adminform"].form.fields["secret"].initial


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"url": "javascript:alert(document.cookie)"}, "url", "Only http:// and https://"),
        ({"url": "http://127.0.0.1:8000/admin/"}, "url", "this site itself"),
        ({"url": "https://admin:pw@hooks.example.org/"}, "url", "user name or password"),
        ({"secret": "short"}, "secret", "at least 16"),
        ({"on_result_rated": None, "on_list_published": None}, "on_result_rated", "at least one event"),
    ],
)
def test_the_add_form_refuses_by_field_and_stores_nothing(admin_client, fields, field, says):
    data = {name: value for name, value in form(**fields).items() if value is not None}  # None: unticked
    answer = admin_client.post("/admin/hooks/webhook/add/", data)
    assert answer.status_code == 200
    errors = answer.context["adminform"].form.errors
    assert says in " ".join(errors[field]), errors
    assert not Webhook.objects.exists()


def test_added_then_changed_without_showing_the_secret_again(admin_client):
    answer = admin_client.post("/admin/hooks/webhook/add/", form())
    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer
    webhook = Webhook.objects.get()
    assert (webhook.created_by, webhook.secret, webhook.on_season_closed) == (admin_client.user, SECRET, False)

    change = admin_client.get(f"/admin/hooks/webhook/{webhook.pk}/change/").content.decode()
    assert SECRET not in change
    assert "••••••••" + SECRET[-4:] in change
    assert SECRET not in admin_client.get("/admin/hooks/webhook/").content.decode()

    answer = admin_client.post(f"/admin/hooks/webhook/{webhook.pk}/change/", form(secret="", name="Renamed"))
    assert answer.status_code == 302
    webhook.refresh_from_db()
    assert (webhook.name, webhook.secret) == ("Renamed", SECRET)  # left empty: kept
    answer = admin_client.post(f"/admin/hooks/webhook/{webhook.pk}/change/", form(secret="new-secret-of-enough-length"))
    webhook.refresh_from_db()
    assert webhook.secret == "new-secret-of-enough-length"
    assert webhook.created_by == admin_client.user


def test_a_test_event_from_the_list_and_a_retry_from_the_deliveries(
    admin_client, receiver, webhook_to, django_capture_on_commit_callbacks
):
    webhook = webhook_to()
    receiver.answers.append(500)
    with django_capture_on_commit_callbacks(execute=True):
        answer = admin_client.post(
            "/admin/hooks/webhook/", {"action": "send_test_event", "_selected_action": [webhook.pk]}
        )
    assert answer.status_code == 302
    assert [request.headers["X-Cardrank-Event"] for request in receiver.requests] == ["ping"]
    delivery = WebhookDelivery.objects.get()
    assert "retrying (500)" in admin_client.get("/admin/hooks/webhook/").content.decode()

    page = admin_client.get(f"/admin/hooks/webhook/{webhook.pk}/change/").content.decode()
    assert str(delivery.uuid)[:8] in page  # the recent deliveries, inline
    detail = admin_client.get(f"/admin/hooks/webhookdelivery/{delivery.pk}/change/").content.decode()
    assert "HTTP 500" in detail
    assert SECRET not in detail

    with django_capture_on_commit_callbacks(execute=True):
        answer = admin_client.post(
            "/admin/hooks/webhookdelivery/", {"action": "retry_now", "_selected_action": [delivery.pk]}
        )
    assert answer.status_code == 302
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status_code) == (2, 200)
    assert delivery.delivered_at is not None
    assert "delivered (200)" in admin_client.get("/admin/hooks/webhook/").content.decode()
    # Deliveries are read-only.
    assert admin_client.post(f"/admin/hooks/webhookdelivery/{delivery.pk}/delete/", {"post": "yes"}).status_code == 403


def test_the_inline_lists_the_newest_twenty(admin_client, webhook_to, django_capture_on_commit_callbacks):
    from hooks.services import webhook_ping

    webhook = webhook_to()
    with django_capture_on_commit_callbacks(execute=False):
        deliveries = [webhook_ping(webhook=webhook) for _ in range(25)]
    page = admin_client.get(f"/admin/hooks/webhook/{webhook.pk}/change/").content.decode()
    shown = [delivery for delivery in deliveries if str(delivery.uuid)[:8] in page]
    assert shown == deliveries[5:]
    assert f"webhook__id__exact={webhook.pk}" in page  # a link to all of them
