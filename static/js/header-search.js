// The header's player search (templates/_header_search.html, games/find.py): an accessible combobox.
//
// htmx fills the listbox (GET players/?q=) as the visitor types; this script opens and closes it,
// moves through the players with the arrow keys (aria-activedescendant, the focus stays in the
// box), follows the active player's link on Enter, and closes the list on Escape or when the focus
// leaves. Enter with no player chosen submits the form: the results page. A polite live region says
// how many players were found. Without this script the form still goes to the results page.
(function () {
  "use strict";

  function formOf(element) {
    return element && element.closest ? element.closest("[data-header-search]") : null;
  }

  function parts(form) {
    return {
      input: form.querySelector("[role=combobox]"),
      list: form.querySelector("[role=listbox]"),
      status: form.querySelector("[data-header-search-status]"),
    };
  }

  function options(list) {
    return Array.from(list.querySelectorAll("[role=option]:not([aria-disabled=true])"));
  }

  const combobox = window.cardrankCombobox; // static/js/combobox.js

  function open(form) {
    const { input, list } = parts(form);
    combobox.open(input, list);
  }

  function close(form) {
    const { input, list } = parts(form);
    combobox.close(input, list, options(list));
  }

  function activate(form, step) {
    const { input, list } = parts(form);
    combobox.activate(input, list, options(list), step);
  }

  function follow(option) {
    const link = option.querySelector("a[href]");
    if (link) window.location.assign(link.href);
  }

  document.addEventListener("keydown", (event) => {
    const form = formOf(event.target);
    if (!form || event.target.getAttribute("role") !== "combobox") return;
    const { input, list } = parts(form);
    const expanded = input.getAttribute("aria-expanded") === "true";
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      activate(form, event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter") {
      const active = input.getAttribute("aria-activedescendant");
      const option = active ? document.getElementById(active) : null;
      if (expanded && option && list.contains(option)) {
        event.preventDefault(); // the chosen player's profile, not the results page
        follow(option);
      }
    } else if (event.key === "Escape" && expanded) {
      event.preventDefault(); // a search field clears itself on Escape: only close the list
      close(form);
    }
  });

  document.addEventListener("input", (event) => {
    const form = formOf(event.target);
    if (form && event.target.getAttribute("role") === "combobox" && !event.target.value.trim()) close(form);
  });

  // Keep the focus in the box while an option is pressed; the option's link does the rest.
  document.addEventListener("mousedown", (event) => {
    if (formOf(event.target) && event.target.closest("[role=option]")) event.preventDefault();
  });

  document.addEventListener("focusout", (event) => {
    const form = formOf(event.target);
    if (form && !form.contains(event.relatedTarget)) close(form);
  });

  document.addEventListener("htmx:afterSwap", (event) => {
    const form = formOf(event.detail.target);
    if (!form || event.detail.target.getAttribute("role") !== "listbox") return;
    const { input, list, status } = parts(form);
    input.removeAttribute("aria-activedescendant");
    const found = options(list).length;
    if (status) {
      status.textContent = input.value.trim()
        ? interpolate(ngettext("%s player found", "%s players found", found), [found])
        : "";
    }
    if (document.activeElement === input && input.value.trim()) open(form);
    else close(form);
  });
})();
