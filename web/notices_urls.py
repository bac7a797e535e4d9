"""The pages of people's notice choices and one-click unsubscribes (notices, issue 27)."""

urlpatterns = []
