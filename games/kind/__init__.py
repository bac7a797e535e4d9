"""A game's kind in parts, one a caller: each layer asks a game for the few members it needs.

``games.base.BaseKind`` is these parts together on top of ``leagues.kinds.GameKind`` (the
capability flags: ``slug``, ``result_noun``, ``rating_periods``, ``bots``, ``parts``,
``engine``). Each part's defaults are those of a game of seats only, so a kind overrides
only what its game does differently, and reading a part shows what one caller may ask.

| part            | module     | who calls it                               | a game usually overrides                 |
|-----------------|------------|--------------------------------------------|------------------------------------------|
| ResultsPart     | results    | matches: cleaning, storing, reading back   | clean; with parts part_rows, stored_body |
| RatingInputPart | rating     | ratings' loaders, replay; leagues.models   | engine_input, or load with parts         |
| ApiPart         | api        | the match API, its schema; config.urls     | body_fields, answer_fields               |
| PagesPart       | pages      | the pages, entry pages, admin; config.urls | templates, entry_view, entry_initial     |
| FilesPart       | files      | the importers and exporters; history CSV   | csv_columns, csv_read, csv_cells         |
| ComparisonPart  | comparison | ratings.compare, the compare pages         | the flags, compare_expected              |

Their members (each module's docstring says more):

- ``ResultsPart``: ``clean``, ``stored_body``, ``part_rows``, ``input_body``, ``store_parts``, ``store_parts_many``,
  ``parts_player_move``, ``season_sides``, ``part_prefetches``.
- ``RatingInputPart``: ``system_label``, ``rated_units``, ``parameters_problem``, ``parameter_texts``,
  ``replay_state``, ``load``, ``engine_input``.
- ``ApiPart``: ``answer_fields``, ``body_fields``, ``body_example_name``, ``body_example``, ``api_name``, ``api_urls``.
- ``PagesPart``: ``templates``, ``has_entry_page``, ``entry_view``, ``entry_label``, ``entry_initial``,
  ``match_page_context``, ``match_title``, ``profile_sections``, ``profile_rating_units``, ``profile_change_notes``,
  ``digest_extra``, ``admin_players``, ``page_urls``, ``calculator_url_name``, ``calculator_label``.
- ``FilesPart``: ``importers``, ``importer_files``, ``csv_columns``, ``csv_read``, ``import_readers``, ``body_players``,
  ``csv_cells``, ``history_opponents``, ``result_key``.
- ``ComparisonPart``: ``compare_side_size``, ``meeting_nouns``, ``points_label``, ``shows_draws``, ``head_to_head``,
  ``compare_record``, ``compare_meetings``, ``compare_expected``, ``crosstable``, ``compare_expected_note``,
  ``profile_head_to_head``.

A part imports from the layers below (``matches``, ``ratings``, ``leagues``), never from
``games.base``; ``tests/games/test_kind_parts.py`` keeps the parts small and apart, and the
results layer calling the results part only.
"""

from games.kind.api import ApiPart
from games.kind.comparison import ComparisonPart
from games.kind.files import FilesPart
from games.kind.pages import PagesPart
from games.kind.rating import RatingInputPart
from games.kind.results import ResultsPart

#: The parts, in ``BaseKind``'s order.
PARTS = (ResultsPart, RatingInputPart, ApiPart, PagesPart, FilesPart, ComparisonPart)

__all__ = ["PARTS", "ApiPart", "ComparisonPart", "FilesPart", "PagesPart", "RatingInputPart", "ResultsPart"]
