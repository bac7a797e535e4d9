"""``manage.py createreferee USERNAME``: a referee user and its API token (printed last).

A token's secret is shown once (``config.tokens`` stores only its digest), so
a referee who already holds a live token gets no second one from running this
again: ``--rotate-token`` replaces every token the user holds (a token seen by
someone else, or a referee who left) with one new token, printed; the old
ones stop working at once.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from config.tokens import api_token_create, api_token_revoke, api_token_rotate


class Command(BaseCommand):
    help = "Create (or reuse) a referee user and print its API token as the last line."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--password", help="Also set a password, for signing in to the result entry pages.")
        parser.add_argument(
            "--rotate-token",
            action="store_true",
            help="Replace the existing user's API tokens with a new one; the old tokens stop working at once.",
        )

    @transaction.atomic
    def handle(self, *args, username, password=None, rotate_token=False, **options):
        username = username.strip()
        if not username:
            raise CommandError("The username cannot be empty.")
        User = get_user_model()
        if rotate_token and not User.objects.filter(username=username).exists():
            # A typo must not create a new referee with a token nobody asked for.
            raise CommandError(f"There is no user {username!r}: no token to rotate.")
        user, created = User.objects.get_or_create(username=username)
        if password:
            user.set_password(password)
            user.save()
        elif created:
            user.set_unusable_password()
            user.save()
        group, _ = Group.objects.get_or_create(name="referees")
        user.groups.add(group)
        live = user.api_tokens.filter(revoked_at__isnull=True, expires_at__gt=timezone.now()).order_by("-created_at")
        if rotate_token:
            newest = live.first()
            if newest is None:
                issued = api_token_create(user=user)
            else:
                issued = api_token_rotate(token=newest)
                api_token_revoke(tokens=user.api_tokens.exclude(pk=issued.token.pk))
            self.stderr.write(
                f"Rotated the API token of {user.get_username()!r}; the old one no longer works. New token:"
            )
        elif live.exists():
            # The secret was shown when it was issued and is stored nowhere: there is nothing to print.
            self.stderr.write(
                f"Reusing referee {user.get_username()!r}, who has an API token (starting {live[0].prefix}, "
                f"expiring {live[0].expires_at:%Y-%m-%d}); it was shown when it was made. "
                "For a new one, run again with --rotate-token."
            )
            issued = None
        else:
            issued = api_token_create(user=user)
            verb = "Created" if created else "Reusing"
            self.stderr.write(f"{verb} referee {user.get_username()!r}. API token, shown this once:")
        if not password and not user.has_usable_password():
            self.stderr.write("(To sign in to the web pages, run again with --password.)")
        if issued is not None:
            self.stdout.write(issued.secret)
