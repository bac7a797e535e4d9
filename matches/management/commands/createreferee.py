"""``manage.py createreferee USERNAME``: a referee user and its API token (printed last).

``--rotate-token`` replaces an existing user's token (a token seen by someone
else, or a referee who left): the old token stops working at once.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Create (or reuse) a referee user and print its API token as the last line."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--password", help="Also set a password, for signing in to the result entry pages.")
        parser.add_argument(
            "--rotate-token",
            action="store_true",
            help="Replace the existing user's API token with a new one; the old token stops working at once.",
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
        if rotate_token:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
        if rotate_token:
            self.stderr.write(
                f"Rotated the API token of {user.get_username()!r}; the old one no longer works. New token:"
            )
        else:
            verb = "Created" if created else "Reusing"
            self.stderr.write(f"{verb} referee {user.get_username()!r}. API token:")
        if not password and not user.has_usable_password():
            self.stderr.write("(To sign in to the web pages, run again with --password.)")
        self.stdout.write(token.key)
