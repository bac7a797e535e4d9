"""Bridge's boards and tables move here from ``matches`` (its migration 0019 lets go of them), every row and id kept.

The models are taken over as they stand (state only: their tables, columns,
constraints and indexes exist), then their tables are renamed to this app's
names, and their content types follow them.
"""

import django.db.models.deletion
from django.db import migrations, models

APP = "bridge"
MODELS = ["board", "boardtable"]


def content_types_move(apps, source, target, models):
    """The models' content types follow them, so that permissions and admin's log keep pointing at them."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in models:
        if not ContentType.objects.filter(app_label=target, model=model).exists():
            ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def forwards(apps, schema_editor):
    content_types_move(apps, "matches", APP, MODELS)


def backwards(apps, schema_editor):
    content_types_move(apps, APP, "matches", MODELS)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("leagues", "0013_rating_system_choices_when_asked"),
        ("matches", "0019_parts_to_their_games"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Board",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("number", models.PositiveIntegerField(help_text="The board number as printed on the board.")),
                        (
                            "position",
                            models.PositiveIntegerField(help_text="Order of play inside the session, from 1."),
                        ),
                        (
                            "dealer",
                            models.CharField(
                                choices=[("N", "N"), ("E", "E"), ("S", "S"), ("W", "W")],
                                help_text="Who dealt the board.",
                                max_length=1,
                            ),
                        ),
                        (
                            "vulnerability",
                            models.CharField(
                                choices=[("None", "None"), ("NS", "NS"), ("EW", "EW"), ("All", "All")],
                                help_text="Who is vulnerable: the board number's standard cycle unless the file or the evening says otherwise.",
                                max_length=4,
                            ),
                        ),
                        (
                            "deal",
                            models.CharField(
                                blank=True,
                                default="",
                                help_text='The hand record as PBN deal text ("N:KQT6.AJT.T984.65 …").',
                                max_length=80,
                            ),
                        ),
                        (
                            "double_dummy",
                            models.JSONField(
                                blank=True,
                                help_text='Tricks each declarer takes in each strain: {"N": {"C": 7, …, "NT": 8}, …}.',
                                null=True,
                            ),
                        ),
                        (
                            "par",
                            models.JSONField(
                                blank=True,
                                help_text='The par result: {"score": NS score, "contracts": […]}.',
                                null=True,
                            ),
                        ),
                        (
                            "byes",
                            models.JSONField(
                                blank=True,
                                default=list,
                                help_text="Points pairs are credited without opponents (a bye, a phantom): not rated, in the standings.",
                            ),
                        ),
                        (
                            "match",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="boards", to="matches.match"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "matches_board",
                        "ordering": ["match", "position"],
                    },
                ),
                migrations.CreateModel(
                    name="BoardTable",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("table", models.PositiveSmallIntegerField(help_text="Table number, from 1.")),
                        ("ns_score", models.IntegerField(blank=True, null=True)),
                        ("ns_imps", models.DecimalField(blank=True, decimal_places=2, max_digits=5, null=True)),
                        (
                            "section",
                            models.CharField(
                                blank=True,
                                default="",
                                help_text="The section, when the evening has several.",
                                max_length=10,
                            ),
                        ),
                        (
                            "ns_pair",
                            models.CharField(
                                blank=True, default="", help_text="The NS pair's number, as text.", max_length=10
                            ),
                        ),
                        (
                            "ew_pair",
                            models.CharField(
                                blank=True, default="", help_text="The EW pair's number, as text.", max_length=10
                            ),
                        ),
                        (
                            "contract",
                            models.CharField(blank=True, default="", help_text='"4SX", "3NT" or "Pass".', max_length=6),
                        ),
                        (
                            "declarer",
                            models.CharField(
                                blank=True,
                                choices=[("N", "N"), ("E", "E"), ("S", "S"), ("W", "W")],
                                default="",
                                max_length=1,
                            ),
                        ),
                        (
                            "tricks",
                            models.PositiveSmallIntegerField(blank=True, help_text="Tricks declarer took.", null=True),
                        ),
                        (
                            "lead",
                            models.CharField(
                                blank=True, default="", help_text='The opening lead, e.g. "SK".', max_length=3
                            ),
                        ),
                        (
                            "adjusted",
                            models.JSONField(
                                blank=True,
                                help_text='An adjusted score instead of a played one: {"ns": "A+", "ew": "A-", "ns_points", "ew_points"}.',
                                null=True,
                            ),
                        ),
                        (
                            "board",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="tables", to="bridge.board"
                            ),
                        ),
                        (
                            "ew_1",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="leagues.player"
                            ),
                        ),
                        (
                            "ew_2",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="leagues.player"
                            ),
                        ),
                        (
                            "ns_1",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="leagues.player"
                            ),
                        ),
                        (
                            "ns_2",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="leagues.player"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "matches_boardtable",
                        "ordering": ["board", "table"],
                    },
                ),
                migrations.AddConstraint(
                    model_name="board",
                    constraint=models.UniqueConstraint(fields=("match", "position"), name="board_unique_position"),
                ),
                migrations.AddConstraint(
                    model_name="board",
                    constraint=models.UniqueConstraint(fields=("match", "number"), name="board_unique_number"),
                ),
                migrations.AddConstraint(
                    model_name="board",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("dealer__in", ["N", "E", "S", "W"])), name="board_dealer_valid"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="board",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("vulnerability__in", ["None", "NS", "EW", "All"])),
                        name="board_vulnerability_valid",
                    ),
                ),
                migrations.AddIndex(
                    model_name="boardtable",
                    index=models.Index(fields=["ns_1", "ns_2"], name="board_table_ns_pair_idx"),
                ),
                migrations.AddIndex(
                    model_name="boardtable",
                    index=models.Index(fields=["ew_1", "ew_2"], name="board_table_ew_pair_idx"),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.UniqueConstraint(fields=("board", "table"), name="board_table_unique"),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("ns_score__isnull", True), ("ns_imps__isnull", True), _connector="OR"),
                        name="board_table_score_or_imps",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            ("adjusted__isnull", True),
                            models.Q(("ns_imps__isnull", True), ("ns_score__isnull", True)),
                            _connector="OR",
                        ),
                        name="board_table_adjusted_unplayed",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("tricks__isnull", True), ("tricks__lte", 13), _connector="OR"),
                        name="board_table_tricks_valid",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("ns_1__lt", models.F("ns_2"))), name="board_table_ns_ordered"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("ew_1__lt", models.F("ew_2"))), name="board_table_ew_ordered"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="boardtable",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("ns_1", models.F("ew_1")), _negated=True),
                            models.Q(("ns_1", models.F("ew_2")), _negated=True),
                            models.Q(("ns_2", models.F("ew_1")), _negated=True),
                            models.Q(("ns_2", models.F("ew_2")), _negated=True),
                        ),
                        name="board_table_four_players",
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="board", table=None),
        migrations.AlterModelTable(name="boardtable", table=None),
        migrations.RunPython(forwards, backwards),
    ]
