"""What the results tell the apps above them, once the transaction that did it has committed
(``send_robust``: a receiver's failure never undoes or refuses a result)."""

from django.dispatch import Signal

#: A second referee disputed a result waiting for confirmation. Arguments: ``match_id``, ``by_id`` (the
#: disputing user's id).
result_disputed = Signal()

#: A result was entered or corrected and now waits for a second referee's confirmation before it is rated.
#: Arguments: ``match_id``.
result_awaits_confirmation = Signal()
