/* global document, uPlot */
// Draws the balance history (served as /assets/balance-chart.js; the page allows no inline
// scripts). The data comes from a JSON block, never from markup.
(function () {
  var holder = document.getElementById('balance-chart');
  var source = document.getElementById('balance-data');
  if (!holder || !source || typeof uPlot === 'undefined') return;
  var data = JSON.parse(source.textContent || '{}');
  var names = data.series || [];
  if (!data.times || data.times.length === 0) {
    holder.textContent = 'No snapshots yet.';
    return;
  }
  var palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563'];
  var series = [{ label: 'time' }].concat(
    names.map(function (name, i) {
      return { label: name, stroke: palette[i % palette.length], width: 2, spanGaps: true };
    }),
  );
  var width = Math.max(280, Math.min(holder.clientWidth || 800, 1060));
  var plot = new uPlot(
    {
      width: width,
      height: 300,
      series: series,
      scales: { x: { time: true } },
      // Minor units, whole numbers: room for a balance in the millions.
      axes: [
        {},
        {
          size: 90,
          values: function (_u, values) {
            return values.map(function (v) {
              return Math.round(v).toLocaleString('en-US');
            });
          },
        },
      ],
    },
    [data.times].concat(data.values),
    holder,
  );
  holder.setAttribute('data-series-count', String(plot.series.length - 1));
})();
