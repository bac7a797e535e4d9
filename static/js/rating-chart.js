// The profile's rating history: one chart per game, shown as tabs (a WAI-ARIA tablist: arrow keys, Home
// and End move between games). Without this script every game's heading and table show one after another.
// Each game's points are [time in ms, rating after a match, rated units so far], in a json_script element; x is the
// date (a linear axis of timestamps, labelled as dates: Chart.js has no date adapter here).
(function () {
  "use strict";
  var tablist = document.querySelector(".chart-tabs");
  var panels = Array.prototype.slice.call(document.querySelectorAll(".chart-panel"));
  if (!panels.length) return;
  var colours = { 0: "#1f6feb", 1: "#d1242f", 2: "#1a7f37", 3: "#9a6700" };

  // A time as the page's language writes it (Django's short formats, from the scripts' catalogue: Y-m-d in
  // English, d.m.Y in Russian), in UTC as the points are.
  function written(ms, format) {
    var iso = new Date(ms).toISOString();
    var parts = { Y: iso.slice(0, 4), m: iso.slice(5, 7), d: iso.slice(8, 10), H: iso.slice(11, 13), i: iso.slice(14, 16) };
    return format.replace(/[YmdHi]/g, function (letter) { return parts[letter]; });
  }

  function day(ms) {
    return written(ms, get_format("SHORT_DATE_FORMAT"));
  }

  function draw(panel, index) {
    var canvas = panel.querySelector("canvas.rating-chart");
    if (!canvas || typeof Chart === "undefined" || Chart.getChart(canvas)) return;
    var source = document.getElementById(canvas.getAttribute("data-series"));
    if (!source) return;
    var series = JSON.parse(source.textContent);
    var first = series.points[0][0];
    var last = series.points[series.points.length - 1][0];
    if (last === first) last = first + 86400000; // one day's results: a day wide
    new Chart(canvas, {
      type: "line",
      data: {
        datasets: [{
          label: series.game,
          data: series.points.map(function (point) { return { x: point[0], y: point[1] }; }),
          borderColor: colours[index % 4],
          backgroundColor: colours[index % 4],
          pointRadius: series.points.length > 120 ? 0 : 2,
          stepped: false,
          tension: 0,
        }],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: {
            type: "linear",
            min: first,
            max: last,
            title: { display: true, text: gettext("Date") },
            ticks: { maxTicksLimit: 6, callback: function (value) { return day(value); } },
          },
          y: { title: { display: true, text: gettext("Rating") } },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: function (items) {
                var point = series.points[items[0].dataIndex];
                if (!point) return "";
                var when = written(point[0], get_format("SHORT_DATETIME_FORMAT"));
                if (!point[2]) return interpolate(gettext("%(when)s, before the first"), { when: when }, true);
                // The game's word for what it rates, in each plural form of the page's language (ratings.selectors).
                var forms = series.unit_forms || [];
                var units = interpolate(forms[pluralidx(point[2])] || forms[forms.length - 1] || "%s", [point[2]]);
                return interpolate(gettext("%(when)s, after %(units)s"), { when: when, units: units }, true);
              },
              label: function (item) { return interpolate(gettext("Rating %s"), [Math.round(item.parsed.y)]); },
            },
          },
        },
      },
    });
  }

  if (!tablist || panels.length < 2) {
    panels.forEach(draw);
    return;
  }
  var tabs = Array.prototype.slice.call(tablist.querySelectorAll("[role=tab]"));

  function select(chosen, focus) {
    tabs.forEach(function (tab, index) {
      var on = tab === chosen;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
      panels[index].hidden = !on;
      if (on) draw(panels[index], index);
    });
    if (focus) chosen.focus();
  }

  panels.forEach(function (panel) {
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", panel.getAttribute("data-tab"));
    panel.tabIndex = 0;
  });
  tablist.hidden = false;
  tablist.classList.add("enhanced");
  tabs.forEach(function (tab, index) {
    tab.addEventListener("click", function () { select(tab, false); });
    tab.addEventListener("keydown", function (event) {
      var next = null;
      if (event.key === "ArrowRight") next = tabs[(index + 1) % tabs.length];
      else if (event.key === "ArrowLeft") next = tabs[(index - 1 + tabs.length) % tabs.length];
      else if (event.key === "Home") next = tabs[0];
      else if (event.key === "End") next = tabs[tabs.length - 1];
      if (next) {
        event.preventDefault();
        select(next, true);
      }
    });
  });
  select(tabs[0], false);
})();
