// The tuning page: observed score against prediction for the chosen and the current candidate, with the ideal.
(function () {
  "use strict";
  var source = document.getElementById("tuning-data");
  var canvas = document.getElementById("tuning-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  var data = JSON.parse(source.textContent);
  if (!data) return;
  var colours = ["#1f6feb", "#d29922"];
  var datasets = [{ label: gettext("mean predicted"), data: data.predicted, backgroundColor: "#9ec5fe" }];
  data.series.forEach(function (series, index) {
    datasets.push({ label: series.label, data: series.data, backgroundColor: colours[index % colours.length] });
  });
  new Chart(canvas, {
    type: "bar",
    data: { labels: data.labels, datasets: datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: { y: { min: 0, max: 1, title: { display: true, text: gettext("score") } }, x: { title: { display: true, text: gettext("predicted") } } },
    },
  });
})();
