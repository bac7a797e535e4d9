// Predicted against observed score per tenth of prediction, with the ideal diagonal.
(function () {
  "use strict";
  var source = document.getElementById("calibration-data");
  var canvas = document.getElementById("calibration-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  var data = JSON.parse(source.textContent);
  new Chart(canvas, {
    type: "bar",
    data: {
      labels: data.labels,
      datasets: [
        { label: gettext("mean predicted"), data: data.predicted, backgroundColor: "#9ec5fe" },
        { label: gettext("observed"), data: data.observed, backgroundColor: "#1f6feb" },
      ],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: { y: { min: 0, max: 1, title: { display: true, text: gettext("score") } }, x: { title: { display: true, text: gettext("predicted") } } },
    },
  });
})();
