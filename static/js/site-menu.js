// The site menu folds behind its Menu button on a phone (templates/base.html, cardrank.css "The frame").
// Loaded in <head> without defer, so the page is marked before its first paint and a phone never sees
// the open menu flash and fold. Without this script the button stays hidden and the menu stays open:
// every link is reachable either way. The button says its state in aria-expanded, which the CSS reads;
// Escape in the menu closes it and returns the focus to the button.
(function () {
  "use strict";

  document.documentElement.classList.add("site-menu-ready");

  function setUp() {
    var button = document.querySelector(".menu-toggle");
    var menu = button && document.getElementById(button.getAttribute("aria-controls"));
    if (!menu) {
      return;
    }
    function setOpen(open) {
      button.setAttribute("aria-expanded", open ? "true" : "false");
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      setOpen(button.getAttribute("aria-expanded") !== "true");
    });
    menu.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
        setOpen(false);
        button.focus();
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
