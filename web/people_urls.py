"""The pages of people's claims of player records (people, issue 27)."""

urlpatterns = []
