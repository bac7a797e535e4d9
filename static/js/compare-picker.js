// The compare page's player pickers (templates/ratings/_compare_side.html): a search box per side, filled by
// htmx from the header's search (GET players/?q=, games/find.py), moved through with the arrow keys by the
// shared combobox (static/js/combobox.js). Choosing a player writes their id into the side's id field; for a
// game of pairs (the game option's data-side-size, 2 for bridge) a second choice adds the partner. The ids
// field works without this script.
(function () {
  "use strict";

  const combobox = window.cardrankCombobox;

  function pickerOf(element) {
    return element && element.closest ? element.closest("[data-compare-picker]") : null;
  }

  function parts(picker) {
    return {
      input: picker.querySelector("[role=combobox]"),
      list: picker.querySelector("[role=listbox]"),
      target: document.getElementById(picker.dataset.target),
      status: picker.querySelector("[data-compare-status]"),
    };
  }

  function options(list) {
    return Array.from(list.querySelectorAll("[role=option]:not([aria-disabled=true])"));
  }

  function sideSize() {
    const game = document.getElementById("compare-game");
    const chosen = game && game.selectedOptions[0];
    return chosen ? Number(chosen.dataset.sideSize || "1") : 1;
  }

  function choose(picker, option) {
    const { input, list, target, status } = parts(picker);
    const id = option.dataset.player;
    if (!id || !target) return;
    const ids = target.value.split(",").map((part) => part.trim()).filter(Boolean);
    const size = sideSize();
    target.value = ids.length && ids.length < size && !ids.includes(id) ? ids.concat(id).join(",") : id;
    const name = option.querySelector(".found-name");
    if (status) {
      const who = name ? name.textContent : gettext("Player");
      status.textContent = interpolate(gettext("%(who)s chosen (%(ids)s)."), { who: who, ids: target.value }, true);
    }
    input.value = "";
    combobox.close(input, list, options(list));
  }

  // The options come with the header's ids (header-search-option-<id>): each side's list gets its own, so two
  // lists on one page never share an id, and the player's id is kept on the option.
  document.addEventListener("htmx:afterSwap", (event) => {
    const picker = pickerOf(event.target);
    if (!picker) return;
    const { input, list } = parts(picker);
    list.querySelectorAll("[role=option]").forEach((option, index) => {
      const match = /(\d+)$/.exec(option.id || "");
      if (match) option.dataset.player = match[1];
      option.id = `${picker.dataset.target}-option-${index}`;
    });
    combobox.open(input, list);
  });

  document.addEventListener("keydown", (event) => {
    const picker = pickerOf(event.target);
    if (!picker || event.target.getAttribute("role") !== "combobox") return;
    const { input, list } = parts(picker);
    const expanded = input.getAttribute("aria-expanded") === "true";
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      combobox.activate(input, list, options(list), event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter") {
      event.preventDefault(); // the search box is not part of the form: Enter chooses, never submits
      const active = input.getAttribute("aria-activedescendant");
      const option = active ? document.getElementById(active) : null;
      if (expanded && option && list.contains(option)) choose(picker, option);
    } else if (event.key === "Escape" && expanded) {
      event.preventDefault();
      combobox.close(input, list, options(list));
    }
  });

  document.addEventListener("click", (event) => {
    const picker = pickerOf(event.target);
    const option = event.target.closest ? event.target.closest("[role=option]") : null;
    if (!picker || !option || option.getAttribute("aria-disabled") === "true") return;
    event.preventDefault(); // the option is the header's link to a profile: here it chooses
    choose(picker, option);
  });
})();
