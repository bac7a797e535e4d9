"""``{% once %}`` (leagues/templatetags/once.py): the page frame's constant parts are rendered once per process,
and nothing that depends on a request can be put in one."""

import pytest
from django.template import Context, Engine, TemplateSyntaxError
from django.test import Client
from django.utils import translation

from tests.factories import RefereeFactory

ENGINE = Engine(libraries={"once": "leagues.templatetags.once", "static": "django.templatetags.static"})


def render(source: str, **context) -> str:
    return ENGINE.from_string("{% load once static %}" + source).render(Context(context))


def test_it_renders_once_and_keeps_the_text():
    template = ENGINE.from_string("{% load once %}{% once %}<a href=\"{% url 'home' %}\">home</a>{% endonce %}")
    first = template.render(Context({}))
    assert first == '<a href="/">home</a>'
    node = next(node for node in template.nodelist if type(node).__name__ == "OnceNode")
    assert node.texts == {translation.get_language(): first}  # kept per language
    node.nodelist = []  # were it rendered again, this would change the answer
    assert template.render(Context({"anything": "else"})) == first


@pytest.mark.parametrize(
    "inside",
    [
        "{{ user.username }}",
        "{% if user %}x{% endif %}",
        "{% csrf_token %}",
        '{% include "_header_search.html" %}',
        "{% url 'player-profile' player.pk %}",
        "{% url view_name %}",
        "{% url 'home' as home %}",
        "{% url 'player-profile' pk=player.pk %}",
        "{% static path %}",
        "{% static 'css/cardrank.css' as css %}",
        "{% url 'home'|lower %}",
    ],
)
def test_anything_that_may_depend_on_the_request_is_refused(inside):
    with pytest.raises(TemplateSyntaxError, match="literal arguments"):
        render("{% once %}" + inside + "{% endonce %}")


def test_literal_arguments_are_accepted():
    text = render("{% once %}{% url 'player-profile' 7 %} {% url 'player-profile' pk='8' %}{% endonce %}")
    assert text == "/players/7/ /players/8/"


def test_it_takes_no_arguments():
    with pytest.raises(TemplateSyntaxError, match="no arguments"):
        render("{% once now %}x{% endonce %}")


@pytest.mark.django_db
def test_the_frame_is_the_same_for_everyone_and_the_account_part_is_not(reference_data):
    """The kept parts (head links, menu links, header search) are byte for byte the same for a visitor and a
    referee, while the parts that are theirs still differ."""
    visitor = Client().get("/matches/").content.decode()
    referee = Client()
    referee.force_login(RefereeFactory(username="frame-ref"))
    signed = referee.get("/matches/").content.decode()

    def kept(page: str) -> str:
        head = page[page.index('<link rel="icon"') : page.index("</script>", page.index("js/site-menu.js"))]
        menu = page[page.index('<a class="brand"') : page.index('<span class="spacer"></span>')]
        search = page[page.index('<form class="header-search"') : page.index("</form>", page.index("header-search"))]
        return head + menu + search

    assert kept(visitor) == kept(signed)
    assert "Referee sign-in" in visitor
    assert "Referee sign-in" not in signed
    assert "Sign out frame-ref" in signed
