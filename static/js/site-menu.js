// The site menu folds behind its Menu button on a phone (templates/base.html, cardrank.css "The frame").
// Without this script the button stays hidden and the menu stays open: every link is reachable either way.
// The button says its state in aria-expanded, which the CSS reads; Escape closes the menu and returns focus.
(function () {
  "use strict";

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
    button.closest("nav").classList.add("menu-ready");
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
