"""A club's admin adds a webhook and sends it a test event in a real browser, at a phone's width (360 px) and
a laptop's (1366 px): every webhook page of admin fits the window, and the secret is shown in clear only on
the add form."""

import pytest

from hooks.models import Webhook, WebhookDelivery
from tests.factories import AdminFactory, reference_data_ensure
from tests.hooks.conftest import receiver  # noqa: F401 - the real HTTP receiver, a fixture

pytestmark = pytest.mark.django_db(transaction=True)

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize("width", [360, 1366])
def test_an_admin_adds_a_webhook_and_sends_a_test_event(page, receiver, width):  # noqa: F811
    reference_data_ensure()
    AdminFactory(username="hooks-admin")
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("hooks-admin")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")

    page.goto("/admin/hooks/webhook/add/")
    assert page.evaluate(FITS), "the add form scrolls sideways"
    secret = page.locator("#id_secret").input_value()
    assert len(secret) >= 16  # generated, offered in clear to copy
    page.locator("#id_name").fill("Club chat")
    page.locator("#id_url").fill("javascript:alert(1)")
    page.locator("input[name=_save]").click()
    page.get_by_text("Only http:// and https:// URLs can receive webhooks.").wait_for()
    assert not Webhook.objects.exists()
    assert page.evaluate(FITS), "the refused form scrolls sideways"
    page.locator("#id_url").fill(receiver.url)
    page.locator("#id_secret").fill(secret)
    page.locator("input[name=_save]").click()
    page.wait_for_url("**/admin/hooks/webhook/")
    webhook = Webhook.objects.get()
    assert (webhook.url, webhook.secret) == (receiver.url, secret)
    assert page.evaluate(FITS), "the webhooks' list scrolls sideways"
    assert secret not in page.content()

    page.locator(f"input[name=_selected_action][value='{webhook.pk}']").check()
    page.locator("select[name=action]").select_option("send_test_event")
    page.get_by_role("button", name="Go", exact=True).click()
    page.get_by_text("A test event is on its way to 1 webhook.").wait_for()
    assert [request.headers["X-Cardrank-Event"] for request in receiver.requests] == ["ping"]
    page.reload()
    assert "delivered (200)" in page.content()

    page.goto(f"/admin/hooks/webhook/{webhook.pk}/change/")
    assert page.evaluate(FITS), "a webhook's page scrolls sideways"
    assert secret not in page.content()
    delivery = WebhookDelivery.objects.get()
    assert str(delivery.uuid)[:8] in page.content()

    page.goto("/admin/hooks/webhookdelivery/")
    assert page.evaluate(FITS), "the deliveries' list scrolls sideways"
    page.goto(f"/admin/hooks/webhookdelivery/{delivery.pk}/change/")
    assert page.evaluate(FITS), "a delivery's page scrolls sideways"
    assert secret not in page.content()
