"""The pages of people's claims, choices and one-click unsubscribes (people, issue 27)."""

urlpatterns = []
