"""``manage.py createreferee USERNAME``: a referee user and its API token (printed last)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Create (or reuse) a referee user and print its API token as the last line."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--password", help="Also set a password, for signing in to the result entry pages.")

    def handle(self, *args, username, password=None, **options):
        username = username.strip()
        if not username:
            raise CommandError("The username cannot be empty.")
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username)
        if password:
            user.set_password(password)
            user.save()
        elif created:
            user.set_unusable_password()
            user.save()
        group, _ = Group.objects.get_or_create(name="referees")
        user.groups.add(group)
        token, _ = Token.objects.get_or_create(user=user)
        verb = "Created" if created else "Reusing"
        self.stderr.write(f"{verb} referee {user.get_username()!r}. API token:")
        if not password and not user.has_usable_password():
            self.stderr.write("(To sign in to the web pages, run again with --password.)")
        self.stdout.write(token.key)
