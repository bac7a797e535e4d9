"""The pages of people's notice choices and one-click unsubscribes (notices, issue 27)."""

from django.urls import path

from web import notice_pages

urlpatterns = [
    path("me/notices/", notice_pages.notice_choices_page, name="notice-choices"),
    path("notices/unsubscribe/<str:token>/", notice_pages.notice_unsubscribe_page, name="notice-unsubscribe"),
]
