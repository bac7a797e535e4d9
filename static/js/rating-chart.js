// Draws the profile's rating history: one line per game. Points are [time, rating, rated units so far];
// a long history arrives at reduced resolution, so x is the unit count, not the point's index.
(function () {
  "use strict";
  var source = document.getElementById("rating-series");
  var canvas = document.getElementById("rating-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  var series = JSON.parse(source.textContent);
  var colours = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700"];
  var datasets = Object.keys(series).map(function (slug, index) {
    return {
      label: slug,
      data: series[slug].map(function (point) { return { x: point[2], y: point[1] }; }),
      borderColor: colours[index % colours.length],
      pointRadius: series[slug].length > 200 ? 0 : 2,
      tension: 0.1,
    };
  });
  new Chart(canvas, {
    type: "line",
    data: { datasets: datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: { x: { type: "linear", title: { display: true, text: "Rated matches" } }, y: { title: { display: true, text: "Rating" } } },
      plugins: {
        tooltip: {
          callbacks: {
            title: function (items) {
              var item = items[0];
              var point = series[Object.keys(series)[item.datasetIndex]][item.dataIndex];
              return point ? new Date(point[0]).toISOString().slice(0, 16).replace("T", " ") : "";
            },
          },
        },
      },
    },
  });
})();
