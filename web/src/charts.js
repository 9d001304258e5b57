// Charts drawn by uPlot, wrapped as Preact components. A chart keeps its uPlot instance and
// swaps the data in when a poll brings new figures.
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import { palette } from './format.js';

export { palette };

/**
 * A line chart. `data` is uPlot's [xs, ...ys]; `series` names each y ({label, color, dash,
 * points}); `x` is 'time' (seconds since the epoch) or a plain number axis named by `xLabel`.
 */
export function LineChart({ data, series, width = 640, height = 240, x = 'time', xLabel, yLabel,
  yFormat, testid }) {
  const el = useRef(null);
  const plot = useRef(null);
  const shape = JSON.stringify([series.map((s) => s.label), width, height, x]);
  useEffect(() => {
    const opts = {
      width, height,
      scales: { x: { time: x === 'time' } },
      // Names and colours only: a live legend reads "time: --" until the cursor is on the plot.
      legend: { show: true, live: false },
      axes: [
        { label: xLabel, stroke: '#555', grid: { stroke: '#eee' } },
        { label: yLabel, stroke: '#555', grid: { stroke: '#eee' }, size: 96,
          values: yFormat ? (u, ticks) => ticks.map(yFormat) : undefined },
      ],
      series: [{ label: xLabel || 'time' }, ...series.map((s, i) => ({
        label: s.label,
        stroke: s.color || palette[i % palette.length],
        width: s.width || 2,
        dash: s.dash,
        points: { show: s.points ?? false },
        spanGaps: true,
        value: yFormat ? (u, v) => (v == null ? '-' : yFormat(v)) : undefined,
      }))],
    };
    plot.current = new uPlot(opts, data, el.current);
    return () => plot.current.destroy();
  }, [shape]);
  useEffect(() => {
    if (plot.current) plot.current.setData(data);
  }, [data]);
  return html`<div class="chart" data-testid=${testid} ref=${el}
    data-colors=${JSON.stringify(Object.fromEntries(series.map((s, i) => [s.label, s.color || palette[i % palette.length]])))}></div>`;
}

/** A small line without axes: a run's spend or utilization over time. */
export function Sparkline({ xs, ys, color = palette[0], width = 120, height = 28, testid, max }) {
  const el = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    plot.current = new uPlot({
      width, height,
      cursor: { show: false }, legend: { show: false }, select: { show: false },
      scales: { x: { time: false }, y: max == null ? {} : { range: [0, max] } },
      axes: [{ show: false }, { show: false }],
      series: [{}, { stroke: color, width: 1.5, fill: `${color}22`, points: { show: false } }],
    }, [xs, ys], el.current);
    return () => plot.current.destroy();
  }, []);
  useEffect(() => {
    if (plot.current) plot.current.setData([xs, ys]);
  }, [xs, ys]);
  return html`<span class="spark" data-testid=${testid} data-points=${xs.length} ref=${el}></span>`;
}
