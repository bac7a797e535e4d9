"""The ``referees`` group: members may submit results (``matches.submit_result``)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations


def create_group(apps, schema_editor):
    # Permissions are normally created after migrate; make sure they exist now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="referees")
    group.permissions.add(Permission.objects.get(codename="submit_result", content_type__app_label="matches"))


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, migrations.RunPython.noop)]
