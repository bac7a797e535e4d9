"""The pages of people's claims of player records (people, issue 27): web.claim_pages."""

from django.urls import path

from web import claim_pages

urlpatterns = [
    path("me/", claim_pages.me_page, name="me"),
    path("claims/", claim_pages.claims_page, name="claims"),
    path("claims/<int:pk>/withdraw/", claim_pages.claim_withdraw_page, name="claim-withdraw"),
    path("players/<int:pk>/claim/", claim_pages.player_claim, name="player-claim"),
    path("players/<int:pk>/unclaim/", claim_pages.player_unclaim_page, name="player-unclaim"),
]
