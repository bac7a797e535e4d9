from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import api as api_plumbing
from config.lanes import heavy_read
from leagues.kinds import KINDS
from web import (
    club_apis,
    compare_apis,
    compare_pages,
    confirm_pages,
    entry_pages,
    export_apis,
    feeds,
    find_pages,
    language_pages,
    league_apis,
    list_apis,
    list_pages,
    match_apis,
    match_pages,
    pages,
    people_apis,
    picker_pages,
    quality_apis,
    quality_pages,
    season_apis,
    season_pages,
)

# Each game's own pages and endpoints (its calculator, ...) come from its kind (``page_urls``, ``api_urls``):
# the kinds are registered when Django starts (``games.apps.GamesConfig.ready``), before the URLs are read.
kind_pages = [pattern for kind in KINDS.values() for pattern in kind.page_urls()]
kind_apis = [pattern for kind in KINDS.values() for pattern in kind.api_urls()]

api = [
    path("games/", club_apis.GameListApi.as_view(), name="api-games"),
    path("leagues/", club_apis.LeagueListApi.as_view(), name="api-leagues"),
    # The downloads' paths end in a file name, not a slash: any segment reaches the view (a JSON 404 for
    # a bad one), where a stricter converter would leave Django's slash-appending redirect to answer it.
    path(
        "games/<str:slug>/results.csv",
        heavy_read(export_apis.GameResultsCsvApi.as_view()),
        name="api-game-results-csv",
    ),
    path(
        "games/<str:slug>/results.json",
        heavy_read(export_apis.GameDumpApi.as_view()),
        name="api-game-results-json",
    ),
    path("leagues/<slug:slug>/seasons/", season_apis.LeagueSeasonsApi.as_view(), name="api-league-seasons"),
    path("leagues/<slug:slug>/seasons/<int:pk>/", season_apis.SeasonApi.as_view(), name="api-league-season"),
    path("games/<slug:slug>/lists/", list_apis.GameListsApi.as_view(), name="api-game-rating-lists"),
    path("games/<slug:slug>/lists/<str:date>/", list_apis.RatingListApi.as_view(), name="api-game-rating-list"),
    path("games/<slug:slug>/drift/", heavy_read(quality_apis.GameDriftApi.as_view()), name="api-game-drift"),
    path("leagues/<slug:slug>/leaderboard/", league_apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path(
        "leagues/<str:slug>/leaderboard.csv",
        heavy_read(league_apis.LeaderboardCsvApi.as_view()),
        name="api-leaderboard-csv",
    ),
    path("players/", club_apis.PlayerCreateApi.as_view(), name="api-players"),
    path("players/<int:pk>/", league_apis.PlayerDetailApi.as_view(), name="api-player"),
    path("players/<int:pk>/rating/", list_apis.PlayerRatingOnApi.as_view(), name="api-player-rating"),
    path("me/", people_apis.MeApi.as_view(), name="api-me"),
    path(
        "players/<int:pk>/history/",
        heavy_read(league_apis.PlayerHistoryApi.as_view()),
        name="api-player-history",
    ),
    path(
        "players/<int:pk>/head-to-head/",
        heavy_read(compare_apis.PlayerHeadToHeadApi.as_view()),
        name="api-player-head-to-head",
    ),
    path("compare/", heavy_read(compare_apis.CompareApi.as_view()), name="api-compare"),
    path(
        "players/<str:pk>/history.csv",
        heavy_read(league_apis.PlayerHistoryCsvApi.as_view()),
        name="api-player-history-csv",
    ),
    path("matches/", match_apis.MatchCreateApi.as_view(), name="api-matches"),
    path("matches/batch/", match_apis.MatchBatchApi.as_view(), name="api-matches-batch"),
    path("matches/<int:pk>/", match_apis.MatchDetailApi.as_view(), name="api-match"),
    path("matches/<int:pk>/void/", match_apis.MatchVoidApi.as_view(), name="api-match-void"),
    path("matches/<int:pk>/correct/", match_apis.MatchCorrectApi.as_view(), name="api-match-correct"),
    path("matches/<int:pk>/confirm/", match_apis.MatchConfirmApi.as_view(), name="api-match-confirm"),
    path("matches/<int:pk>/dispute/", match_apis.MatchDisputeApi.as_view(), name="api-match-dispute"),
    *kind_apis,
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script from this URL (?script), not inline: no CSP exception.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    # Last: any other path under /api/ answers a JSON 404 in debug mode too, where Django would show its
    # HTML page instead of calling handler404. Only paths ending in a slash, so that Django's
    # redirect of /api/games to /api/games/ still comes first. Exempt from CSRF like the API's views: a
    # POST to no route is a 404, not Django's HTML CSRF page.
    re_path(r"^(?:.*/)?$", csrf_exempt(api_plumbing.api_page_not_found), name="api-not-found"),
]

urlpatterns = [
    path("", pages.home, name="home"),
    path("leagues/<slug:slug>/", pages.league_leaderboard, name="league-leaderboard"),
    path("leagues/<slug:slug>/feed.atom", feeds.LeagueFeed(), name="league-feed"),
    path("leagues/<slug:slug>/seasons.ics", feeds.league_seasons_ics, name="league-seasons-ics"),
    path("leagues/<slug:slug>/seasons/", season_pages.league_seasons_page, name="league-seasons"),
    path("leagues/<slug:slug>/seasons/<int:pk>/", season_pages.season_page, name="league-season"),
    path("players/", find_pages.players_find_page, name="players-find"),
    path("players/search/", picker_pages.player_search, name="player-search"),
    path("players/<int:pk>/", heavy_read(pages.player_profile), name="player-profile"),
    path("players/<int:pk>/history/", heavy_read(pages.player_history), name="player-history"),
    path("players/<int:pk>/feed.atom", feeds.PlayerFeed(), name="player-feed"),
    path(
        "players/<int:pk>/records/<slug:kind>/<slug:name>/",
        heavy_read(pages.player_records),
        name="player-records",
    ),
    path("players/<int:pk>/head-to-head/", heavy_read(compare_pages.head_to_head_page), name="player-head-to-head"),
    path("leagues/<slug:slug>/crosstable/", heavy_read(compare_pages.crosstable_page), name="league-crosstable"),
    path("compare/", heavy_read(compare_pages.compare_page), name="compare"),
    path("matches/", match_pages.recent_matches_page, name="matches-recent"),
    path("matches/<int:pk>/", pages.match_page, name="match-detail"),
    path("games/<slug:slug>/lists/", list_pages.rating_lists_page, name="rating-lists"),
    path("games/<slug:slug>/lists/<str:day>.csv", heavy_read(list_pages.rating_list_csv), name="rating-list-csv"),
    path("games/<slug:slug>/lists/<str:day>/", list_pages.rating_list_page, name="rating-list"),
    path("games/<slug:slug>/lists/<str:day>/movers/", list_pages.rating_list_movers_page, name="rating-list-movers"),
    # The kinds' own pages and the confirmations first: the game route takes any slug.
    *kind_pages,
    path("results/confirm/", confirm_pages.confirmations, name="confirmations"),
    path("results/<slug:game>/", entry_pages.result_entry, name="result-entry"),
    path("calculator/", quality_pages.calculators, name="calculators"),
    path("quality/", heavy_read(quality_pages.quality_overview), name="quality"),
    path("quality/<slug:slug>/", heavy_read(quality_pages.quality_detail), name="quality-detail"),
    path("language/", language_pages.switch_language, name="switch-language"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include(api)),
    path("", include("web.people_urls")),
    path("", include("web.notices_urls")),
]

# Refusals, unmatched paths and crashes under /api/ answer JSON (config.api); pages keep Django's own
# (but a body over CARDRANK_MAX_BODY_BYTES is a 413 everywhere), drawn by templates/404.html and 500.html.
handler400 = "config.api.api_bad_request"
handler403 = "config.api.api_permission_denied"
handler404 = "config.api.api_page_not_found"
handler500 = "config.api.api_server_error"
