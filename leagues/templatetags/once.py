"""``{% once %}…{% endonce %}``: a part of the page frame that is the same for every request, rendered once
per process and kept as text.

Every page draws the site's frame: the stylesheet and script links (``{% static %}``, a manifest lookup
each), the menu's links (``{% url %}``, a reverse each) and the header's search form. None of it depends
on the request, the user or the page, yet Django's templates render it again on every request; kept as
text, it costs one attribute read (docs/performance.md).

So that nothing that does depend on the request can be kept and shown to someone else, the tag accepts
only text, comments, ``{% load %}``, ``{% url %}`` and ``{% static %}`` whose arguments are all literal
strings, and ``{% translate "literal" %}``, with no filter and no ``as`` variable; the text is kept once
per language (issue 28). Anything else (a variable, an ``{% if %}``, an
``{% include %}``, ``{% csrf_token %}``) is a ``TemplateSyntaxError`` when the template is loaded.

``{% memo name=value ... %}…{% endmemo %}``: a part of a page that depends only on the values it is
given, rendered once for each set of values and kept as text (the entry pages' fields: their pickers,
bot lists and deal rows are the same for every referee until something is typed). The body is rendered
with those values alone, so it cannot depend on anything else, and a name the page has but the body was
not given (``{{ user }}``, ``{{ request.path }}``, ``{% if perms.… %}``) is a ``TemplateSyntaxError``
naming it, never an empty text; see ``memo``.
"""

from collections import OrderedDict
from dataclasses import fields, is_dataclass
from datetime import date, time, timedelta
from decimal import Decimal
from threading import Lock

from django import template
from django.template import Context
from django.template.base import FilterExpression, TextNode, Variable
from django.template.defaulttags import CommentNode, CsrfTokenNode, LoadNode, URLNode
from django.templatetags.i18n import TranslateNode
from django.templatetags.static import StaticNode
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.safestring import SafeData

register = template.Library()


def _literal(expression: FilterExpression) -> bool:
    if expression.filters:
        return False
    value = expression.var
    return isinstance(value, str) or (isinstance(value, Variable) and value.lookups is None)


def _constant(node) -> bool:
    if isinstance(node, (TextNode, CommentNode, LoadNode)):
        return True
    if isinstance(node, URLNode):
        return (
            node.asvar is None
            and _literal(node.view_name)
            and all(_literal(argument) for argument in node.args)
            and all(_literal(argument) for argument in node.kwargs.values())
        )
    if isinstance(node, StaticNode):
        return node.varname is None and _literal(node.path)
    if isinstance(node, TranslateNode):
        # Its text depends on the language alone, which keys the kept text.
        return (
            node.asvar is None
            and _literal(node.filter_expression)
            and (node.message_context is None or _literal(node.message_context))
        )
    return False


class OnceNode(template.Node):
    """Keeps its text per process and language, renewed by nothing but a restart: it is literal text, URLs,
    static files' names and translated literals, which change only with a deploy."""

    def __init__(self, nodelist):
        self.nodelist = nodelist
        self.texts: dict[str | None, str] = {}

    def render(self, context):
        # Two requests rendering it at the same moment both render it, to the same text: no lock needed.
        language = translation.get_language()
        text = self.texts.get(language)
        if text is None:
            text = self.texts[language] = self.nodelist.render(context)
        return text


@register.tag
def once(parser, token):
    """``{% once %}…{% endonce %}``: rendered on the first request, the same text on every later one."""
    if len(token.split_contents()) != 1:
        raise template.TemplateSyntaxError("'once' takes no arguments.")
    nodelist = parser.parse(("endonce",))
    parser.delete_first_token()
    for node in nodelist:
        if not _constant(node):
            raise template.TemplateSyntaxError(
                f"'once' keeps its content for every request, so it may hold only text, comments, url and "
                f"static tags with literal arguments and translate tags of a literal; not {node!r}."
            )
    return OnceNode(nodelist)


#: How many renderings one ``{% memo %}`` keeps: the last ones asked, per process.
MEMO_SIZE = 64


class MemoContext(Context):
    """The context a ``{% memo %}`` body is rendered in: its values only. Every name the body asks for and
    does not find is noted in ``unseen`` (shared with the contexts an ``{% include %}`` makes from it), even
    where Django swallows the miss (``{% if a and b %}`` is False on any error)."""

    def __init__(self, values, **kwargs):
        super().__init__(values, **kwargs)
        self.unseen: set[str] = set()

    def __getitem__(self, key):
        try:
            return super().__getitem__(key)
        except KeyError:
            self.unseen.add(key)
            raise

    def __contains__(self, key):
        found = super().__contains__(key)
        if not found and key != "forloop":  # ``{% for %}`` asks whether it is inside another loop
            self.unseen.add(key)
        return found


class MemoNode(template.Node):
    """``{% memo name=value ... %}``: see ``memo``. Keeps the last ``MEMO_SIZE`` texts per process, keyed by the
    values themselves (and the language, time zone and escaping): nothing renews it, new values are a new key."""

    def __init__(self, inputs: dict, nodelist):
        self.inputs = inputs
        self.nodelist = nodelist
        self.kept: OrderedDict = OrderedDict()  # key -> (text, the names its rendering asked for and missed)
        self.lock = Lock()

    def render(self, context):
        values = {name: expression.resolve(context) for name, expression in self.inputs.items()}
        key = (
            context.autoescape,
            context.use_l10n,
            context.use_tz,
            translation.get_language(),
            timezone.get_current_timezone_name(),
            tuple((name, _frozen(value)) for name, value in values.items()),
        )
        with self.lock:
            kept = self.kept.get(key)
            if kept is not None:
                self.kept.move_to_end(key)
        if kept is None:
            # Only its inputs: nothing of the request, the user or the context processors can reach the text.
            inner = MemoContext(values, autoescape=context.autoescape, use_l10n=context.use_l10n, use_tz=context.use_tz)
            with inner.bind_template(context.template):
                text = self.nodelist.render(inner)
            kept = text, frozenset(inner.unseen)
            with self.lock:
                self.kept[key] = kept
                while len(self.kept) > MEMO_SIZE:
                    self.kept.popitem(last=False)
        text, unseen = kept
        # A name no one gave renders empty, as Django renders it (an include's optional argument); one the page
        # has and the body could not see (the user, the request, perms) would render differently: refused.
        hidden = sorted(name for name in unseen if name in context)
        if hidden:
            raise template.TemplateSyntaxError(
                f"'memo' renders its body with the values it is given alone, and the page's {', '.join(hidden)} "
                f"is not one of them (given: {', '.join(values)}). Pass it as name=value, or move what shows it "
                f"out of the memo: the request, the user, perms and the CSRF token differ by request and are "
                f"never kept."
            )
        return text


def _frozen(value):
    """``value`` as a key that equals another only where both render alike: plain data only."""
    if value is None or isinstance(value, (bool, int)):
        return type(value), value
    if isinstance(value, (float, Decimal, date, time, timedelta)):  # equal, yet shown apart: 1.0 and 1.00, zones
        return type(value), str(value), str(getattr(value, "tzinfo", None))
    if isinstance(value, str):
        return ("safe" if isinstance(value, SafeData) else "text"), str(value)
    if isinstance(value, Promise):  # a lazy translation: its text now
        return "text", str(value)
    if isinstance(value, (list, tuple)):
        return "seq", tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return "map", tuple((_frozen(name), _frozen(item)) for name, item in value.items())
    if is_dataclass(value) and not isinstance(value, type):
        shown = tuple((item.name, _frozen(getattr(value, item.name))) for item in fields(value))
        return type(value).__qualname__, shown
    raise template.TemplateSyntaxError(
        f"'memo' keeps its text for the values it is given, so they must be plain data (text, numbers, times, "
        f"lists, dicts, dataclasses of them); not {type(value).__name__}."
    )


@register.tag
def memo(parser, token):
    """``{% memo name=value ... %}…{% endmemo %}``: the body rendered once for each set of values, kept.

    The body sees only the values it is given (no request, no user, no context processor, no CSRF token),
    and asking for a name the page has but did not give it is a ``TemplateSyntaxError`` naming it
    (``MemoContext``; checked on every render, kept text or not), never an empty text. A name the page
    does not have either renders empty, as without the memo (an include's optional argument). So what it
    renders is a function of the values, and what it shows is what the page would show without the memo:
    the same values give the same text, which is kept per process (the last ``MEMO_SIZE``) and never
    stale. The values must be plain data (``_frozen``): a model instance, whose text could change under
    the same key, is refused.
    """
    bits = token.split_contents()[1:]
    inputs = template.base.token_kwargs(bits, parser, support_legacy=False)
    if bits or not inputs:
        raise template.TemplateSyntaxError("'memo' takes name=value arguments only, one at least.")
    nodelist = parser.parse(("endmemo",))
    parser.delete_first_token()
    if nodelist.get_nodes_by_type(CsrfTokenNode):
        raise template.TemplateSyntaxError("'memo' cannot keep a {% csrf_token %}: each request has its own.")
    return MemoNode(inputs, nodelist)
