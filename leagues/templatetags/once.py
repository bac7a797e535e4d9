"""``{% once %}…{% endonce %}``: a part of the page frame that is the same for every request, rendered once
per process and kept as text.

Every page draws the site's frame: the stylesheet and script links (``{% static %}``, a manifest lookup
each), the menu's links (``{% url %}``, a reverse each) and the header's search form. None of it depends
on the request, the user or the page, yet Django's templates render it again on every request; kept as
text, it costs one attribute read (docs/performance.md).

So that nothing that does depend on the request can be kept and shown to someone else, the tag accepts
only text, comments, ``{% load %}``, and ``{% url %}`` and ``{% static %}`` whose arguments are all
literal strings, with no filter and no ``as`` variable: anything else (a variable, an ``{% if %}``, an
``{% include %}``, ``{% csrf_token %}``) is a ``TemplateSyntaxError`` when the template is loaded.
"""

from django import template
from django.template.base import FilterExpression, TextNode, Variable
from django.template.defaulttags import CommentNode, LoadNode, URLNode
from django.templatetags.static import StaticNode

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
    return False


class OnceNode(template.Node):
    def __init__(self, nodelist):
        self.nodelist = nodelist
        self.text = None

    def render(self, context):
        # Two requests rendering it at the same moment both render it, to the same text: no lock needed.
        text = self.text
        if text is None:
            text = self.text = self.nodelist.render(context)
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
                f"'once' keeps its content for every request, so it may hold only text, comments, and url and "
                f"static tags with literal arguments; not {node!r}."
            )
    return OnceNode(nodelist)
