// The bridge evening's entry page (templates/games/bridge/entry.html), on form[data-entry]:
// Enter moves to the next cell and never submits (cells marked data-entry-skip, the pair numbers a
// movement prefilled, are passed over; Tab still reaches them), and changing the evening's setup
// (movement, tables, boards, what is entered) redraws the travellers through the "Set up" button
// once the focus leaves the evening's fields.
(function () {
  "use strict";

  function cells(form, current) {
    return Array.prototype.filter.call(form.querySelectorAll("input, select"), function (element) {
      if (element === current) return true;
      return element.type !== "hidden" && !element.disabled && !element.hasAttribute("data-entry-skip") &&
        element.offsetParent !== null;
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing || event.defaultPrevented) return;
    var target = event.target;
    var form = target.closest ? target.closest("form[data-entry]") : null;
    if (!form || target.tagName === "TEXTAREA" || target.tagName === "BUTTON" || target.type === "submit") return;
    // A picker's open list of suggestions takes its own Enter (choosing the one highlighted).
    if (target.getAttribute("role") === "combobox" && target.getAttribute("aria-expanded") === "true") return;
    event.preventDefault();
    var list = cells(form, target);
    var next = list[list.indexOf(target) + 1];
    if (next) {
      next.focus();
      if (next.select) next.select();
    }
  });

  // A changed setup field redraws the travellers once the focus leaves the evening's fieldset, so a
  // scorer typing tables, then boards, is not overtaken by a redraw of the first (which would drop
  // what is typed meanwhile). The "Set up" button redraws at once.
  var changed = false;
  document.addEventListener("change", function (event) {
    var element = event.target;
    if (element.matches && element.matches("form[data-entry] [data-refresh]")) changed = true;
  });
  document.addEventListener("focusout", function (event) {
    var fieldset = event.target.closest ? event.target.closest("form[data-entry] fieldset.evening") : null;
    if (!fieldset || !changed || (event.relatedTarget && fieldset.contains(event.relatedTarget))) return;
    changed = false;
    var form = fieldset.closest("form");
    var button = form.querySelector('button[name="action"][value="refresh"]');
    if (button) button.click(); // a click, so htmx sends the button's action (requestSubmit would not)
  });
  document.addEventListener("htmx:afterSwap", function () {
    changed = false;
  });
})();
