// The quality page's rating drift: the mean rating of active players per week or month, drawn with the
// vendored Chart.js as the profile's rating chart is (a line, no animation). Periods nobody was active
// in are gaps. Without this script the table under the chart holds the same figures.
(function () {
  "use strict";
  var source = document.getElementById("drift-data");
  var canvas = document.getElementById("drift-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  var data = JSON.parse(source.textContent);
  new Chart(canvas, {
    type: "line",
    data: {
      // Each period's first day (ISO) as the page's language writes a short date (Y-m-d, d.m.Y).
      labels: data.labels.map(function (label) {
        var parts = { Y: label.slice(0, 4), m: label.slice(5, 7), d: label.slice(8, 10) };
        return get_format("SHORT_DATE_FORMAT").replace(/[Ymd]/g, function (letter) { return parts[letter]; });
      }),
      datasets: [{
        label: gettext("mean active rating"),
        data: data.means,
        borderColor: "#1f6feb",
        backgroundColor: "#1f6feb",
        pointRadius: data.means.length > 120 ? 0 : 2,
        spanGaps: false,
        tension: 0,
      }],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: gettext("from") }, ticks: { maxTicksLimit: 6 } },
        y: { title: { display: true, text: gettext("Mean rating") } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: function (item) {
              var active = data.active[item.dataIndex];
              return interpolate(
                ngettext("Mean %(mean)s over %(active)s active player", "Mean %(mean)s over %(active)s active players", active),
                { mean: Math.round(item.parsed.y), active: active },
                true,
              );
            },
          },
        },
      },
    },
  });
})();
