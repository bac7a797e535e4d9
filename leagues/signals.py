"""What the leagues tell the apps above them, once the transaction that did it has committed
(``send_robust``)."""

from django.dispatch import Signal

#: A season ended and its table was frozen (``season_close``). Arguments: ``season_id``.
season_closed = Signal()
