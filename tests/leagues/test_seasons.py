"""A league's seasons (issue 27): named stretches of its calendar that never overlap and end on or after they
begin, refused by field when they would, and served as an iCalendar a calendar app subscribes to."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from icalendar import Calendar

from leagues.models import League, Season
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

D = datetime.date


@pytest.fixture
def league(reference_data):
    return League.objects.get(slug="slaps-amateur")


@pytest.fixture
def autumn(league):
    season = Season(league=league, name="Autumn 2026", first_day=D(2026, 9, 1), last_day=D(2026, 12, 20))
    season.full_clean()
    season.save()
    return season


@pytest.mark.parametrize(
    ("first", "last", "field", "said"),
    [
        (D(2026, 12, 20), D(2026, 12, 31), "first_day", "season Autumn 2026 (2026-09-01 to 2026-12-20) overlaps"),
        (D(2026, 8, 1), D(2026, 9, 1), "first_day", "overlaps these days"),
        (D(2026, 10, 1), D(2026, 10, 2), "first_day", "overlaps these days"),  # inside it
        (D(2026, 8, 1), D(2027, 1, 1), "first_day", "overlaps these days"),  # around it
        (D(2027, 2, 1), D(2027, 1, 31), "last_day", "A season ends on or after its first day."),
    ],
)
def test_a_season_that_overlaps_or_ends_before_it_begins_is_refused_by_field(autumn, first, last, field, said):
    season = Season(league=autumn.league, name="Spring 2027", first_day=first, last_day=last)
    with pytest.raises(ValidationError) as refused:
        season.full_clean()
    assert said in refused.value.message_dict[field][0]
    assert Season.objects.count() == 1


def test_touching_seasons_and_another_leagues_season_are_fine(autumn):
    spring = Season(league=autumn.league, name="Spring 2027", first_day=D(2026, 12, 21), last_day=D(2027, 5, 31))
    spring.full_clean()
    spring.save()
    other = Season(league=League.objects.get(slug="slaps-pro"), name="Autumn 2026", first_day=D(2026, 9, 1),
                   last_day=D(2026, 12, 20))  # fmt: skip
    other.full_clean()
    other.save()
    autumn.full_clean()  # a season does not overlap itself when edited


def test_the_database_refuses_a_season_ending_before_it_begins(league):
    with pytest.raises(IntegrityError), transaction.atomic():
        Season.objects.create(league=league, name="Backwards", first_day=D(2027, 2, 1), last_day=D(2027, 1, 1))


def test_admin_adds_seasons_on_the_leagues_page_and_refuses_two_that_overlap_each_other(league, client):
    client.force_login(AdminFactory())
    url = f"/admin/leagues/league/{league.pk}/change/"
    form = client.get(url).context["adminform"].form
    data = {name: ("" if value is None else value) for name, value in form.initial.items()}
    data |= {"game": league.game_id, "seasons-TOTAL_FORMS": "2", "seasons-INITIAL_FORMS": "0"}
    data = {key: value for key, value in data.items() if value is not None}
    rows = [("Autumn", "2026-09-01", "2026-12-31"), ("Winter", "2026-12-01", "2027-02-28")]
    for n, (name, first, last) in enumerate(rows):
        data |= {f"seasons-{n}-name": name, f"seasons-{n}-first_day": first, f"seasons-{n}-last_day": last}
    answer = client.post(url, data)
    assert answer.status_code == 200
    assert "The seasons Autumn and Winter overlap." in answer.content.decode()
    assert not Season.objects.exists()
    data["seasons-1-first_day"] = "2027-01-01"
    answer = client.post(url, data)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert list(Season.objects.values_list("name", flat=True)) == ["Autumn", "Winter"]


def test_a_leagues_seasons_are_an_icalendar_of_all_day_events(autumn, client):
    Season.objects.create(league=autumn.league, name="Spring, 2027; early", first_day=D(2027, 1, 10),
                          last_day=D(2027, 5, 31))  # fmt: skip
    answer = client.get("/leagues/slaps-amateur/seasons.ics")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/calendar; charset=utf-8"
    assert b"\r\n" in answer.content  # RFC 5545's line ends
    calendar = Calendar.from_ical(answer.content)
    events = sorted(calendar.walk("VEVENT"), key=lambda event: event.decoded("dtstart"))
    assert [
        (str(event["summary"]), event.decoded("dtstart"), event.decoded("dtend"), str(event["uid"])) for event in events
    ] == [
        ("Slaps Amateur: Autumn 2026", D(2026, 9, 1), D(2026, 12, 21), f"season-{autumn.pk}@testserver"),
        ("Slaps Amateur: Spring, 2027; early", D(2027, 1, 10), D(2027, 6, 1), f"season-{autumn.pk + 1}@testserver"),
    ]  # fmt: skip  (the last day is whole: an all-day event ends the day after)
    assert b"SUMMARY:Slaps Amateur: Spring\\, 2027\\; early" in answer.content  # escaped as RFC 5545 says
    # A backslash is doubled (icalendar's own reader would then read "\\n" as a line break: checked as written).
    Season.objects.filter(name__startswith="Spring").update(name="A\\new")
    assert b"SUMMARY:Slaps Amateur: A\\\\new\r\n" in client.get("/leagues/slaps-amateur/seasons.ics").content
    assert client.get("/leagues/nope/seasons.ics").status_code == 404
