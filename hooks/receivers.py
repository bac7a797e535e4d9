"""The lower apps' signals, heard (connected in ``hooks.apps``): each records its event's deliveries
(``hooks.services``), which costs nothing more than a look at the active webhooks when none wants it. The
signals are sent after their work committed, with ``send_robust``: a receiver's failure is logged by
Django, never the rating run's or the request's."""

from hooks import services


def results_rated(sender, *, game_id: int, match_ids: list[int], **kwargs) -> None:
    services.results_rated_record(game_id=game_id, match_ids=match_ids)


def rating_list_published(sender, *, rating_list_id: int, **kwargs) -> None:
    services.list_published_record(rating_list_id=rating_list_id)


def season_closed(sender, *, season_id: int, **kwargs) -> None:
    services.season_closed_record(season_id=season_id)
