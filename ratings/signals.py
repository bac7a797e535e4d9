"""What the ratings tell the apps above them (docs/architecture.md: higher apps listen, lower apps never
import them). Each is sent once the transaction that did the work has committed, so a receiver sees it
stored and may queue a task; a receiver's failure is the receiver's (they are sent with ``send_robust``)."""

from django.dispatch import Signal

#: Results rated for the first time in their current version (a result entered, or corrected, went from
#: submitted to rated), after the rating run's commit. A replay re-rating older results does not send them
#: again. Arguments: ``game_id``, ``match_ids`` (a list, in rating order; one send per written batch).
results_rated = Signal()

#: A game's official rating list was published (a new list, or an admin's republished version), after the
#: commit. Arguments: ``rating_list_id``.
rating_list_published = Signal()
