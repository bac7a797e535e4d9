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
      labels: data.labels,
      datasets: [{
        label: "mean active rating",
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
        x: { title: { display: true, text: "from" }, ticks: { maxTicksLimit: 6 } },
        y: { title: { display: true, text: "Mean rating" } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: function (item) {
              return "Mean " + Math.round(item.parsed.y) + " over " + data.active[item.dataIndex] + " active players";
            },
          },
        },
      },
    },
  });
})();
