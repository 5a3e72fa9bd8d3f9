// PTXBench HTML report: plots and drill-down drawn from the embedded report (the same tables the
// JSON format prints). Turn details sit in one <script type="application/json"> per trajectory
// and are parsed only when that trajectory is opened.
(function () {
  'use strict';
  const report = JSON.parse(document.getElementById('report-data').textContent);
  const tables = {};
  report.tables.forEach(function (t) { tables[t.name] = t; });
  const rowsOf = function (name) { return tables[name] ? tables[name].rows : []; };
  const budgets = report.meta.budgets || [];
  const maxBudget = budgets[budgets.length - 1];
  const groups = rowsOf('coverage').map(function (r) { return r.group; });
  const byGroup = function (name) {
    const m = new Map();
    groups.forEach(function (g) { m.set(g, []); });
    rowsOf(name).forEach(function (r) { if (m.has(r.group)) m.get(r.group).push(r); });
    return m;
  };
  const PLOTS = {};
  const config = { responsive: true, displaylogo: false };
  function plot(id, data, layout) {
    const gd = document.getElementById(id);
    Plotly.newPlot(gd, data, Object.assign({
      height: 480, margin: { t: 48, l: 60, r: 20, b: 50 },
      legend: { font: { size: 10 }, orientation: 'h', yanchor: 'top', y: -0.24 }
    }, layout), config);
    PLOTS[id] = gd;
  }
  function options(select, values, selected) {
    values.forEach(function (v) {
      const o = document.createElement('option');
      o.value = String(v);
      o.textContent = String(v);
      if (v === selected) o.selected = true;
      select.appendChild(o);
    });
  }

  // fast_p and FastpInst. curves at the chosen budget.
  const fastp = byGroup('fast_p');
  const budgetSelect = document.getElementById('fastp-budget');
  options(budgetSelect, budgets, maxBudget);
  function drawFastp() {
    const b = Number(budgetSelect.value);
    [['plot-fastp', 'fast_p', 'fast_p'], ['plot-fastp-inst', 'fastp_inst', 'FastpInst.']].forEach(function (spec) {
      const traces = groups.map(function (g) {
        const rs = fastp.get(g).filter(function (r) { return r.budget === b && r.metric === spec[1]; });
        return { type: 'scatter', mode: 'lines', name: g, x: rs.map(function (r) { return r.p; }), y: rs.map(function (r) { return r.rate; }) };
      });
      plot(spec[0], traces, {
        title: { text: spec[2] + ' at budget ' + b + ' (unit: ' + report.meta.fastp_unit + ')' },
        xaxis: { title: { text: 'speedup threshold p (x library)' } },
        yaxis: { title: { text: 'share of units faster than p' }, range: [0, 1.02] }
      });
    });
  }
  budgetSelect.addEventListener('change', drawFastp);
  drawFastp();

  // Transition matrix of the chosen group.
  const transitions = byGroup('transitions');
  const order = report.meta.transition_states || [];
  const groupSelect = document.getElementById('transition-group');
  // The first group that has transitions (a run with no GPU stage has none).
  const firstWithPairs = groups.find(function (g) { return transitions.get(g).length > 0; }) || groups[0];
  options(groupSelect, groups, firstWithPairs);
  function drawTransitions() {
    const rs = transitions.get(groupSelect.value) || [];
    const present = new Set();
    rs.forEach(function (r) { present.add(r.from); present.add(r.to); });
    const states = order.filter(function (s) { return present.has(s); });
    const z = states.map(function (from) {
      return states.map(function (to) {
        const hit = rs.find(function (r) { return r.from === from && r.to === to; });
        return hit ? hit.count : 0;
      });
    });
    plot('plot-transitions', [{ type: 'heatmap', x: states, y: states, z: z, colorscale: 'Blues', hovertemplate: '%{y} -> %{x}: %{z}<extra></extra>' }], {
      title: { text: 'Transitions turn k -> k+1: ' + groupSelect.value },
      xaxis: { title: { text: 'state at k+1' }, tickangle: -35 },
      yaxis: { title: { text: 'state at k' }, autorange: 'reversed' },
      margin: { t: 48, l: 150, r: 20, b: 130 }
    });
  }
  groupSelect.addEventListener('change', drawTransitions);
  drawTransitions();

  // Speedup distribution of correct, timed turns.
  const speedups = byGroup('speedups');
  plot('plot-speedups', groups.map(function (g) {
    return { type: 'box', name: g, boxpoints: 'all', jitter: 0.4, pointpos: 0, y: speedups.get(g).map(function (r) { return r.speedup; }) };
  }), { title: { text: 'Geomean speedup of correct turns' }, yaxis: { title: { text: 'speedup (x library)' } }, showlegend: false });

  // Correctness by turn number.
  const byTurn = byGroup('correctness_by_turn');
  const turnTraces = [];
  groups.forEach(function (g) {
    const rs = byTurn.get(g);
    const x = rs.map(function (r) { return r.turn; });
    turnTraces.push({ type: 'scatter', mode: 'lines+markers', name: g + ' (target)', x: x, y: rs.map(function (r) { return r.target_rate; }) });
    turnTraces.push({ type: 'scatter', mode: 'lines', line: { dash: 'dot' }, name: g + ' (correct)', x: x, y: rs.map(function (r) { return r.correct_rate; }) });
  });
  plot('plot-correctness-turn', turnTraces, {
    title: { text: 'Correctness by turn (solid: target-instruction, dotted: unrestricted)' },
    xaxis: { title: { text: 'turn' }, dtick: 1 }, yaxis: { title: { text: 'share of counted turns' }, range: [0, 1.02] }
  });

  // Reasoning length by turn number.
  const reasoning = byGroup('reasoning');
  const units = new Set();
  plot('plot-reasoning', groups.map(function (g) {
    const rs = reasoning.get(g);
    const unit = rs.length ? rs[0].unit : '';
    units.add(unit);
    return { type: 'scatter', mode: 'lines+markers', name: g + ' (' + unit + ')', x: rs.map(function (r) { return r.turn; }), y: rs.map(function (r) { return r.mean; }) };
  }), {
    title: { text: 'Mean reasoning length by turn' },
    xaxis: { title: { text: 'turn' }, dtick: 1 }, yaxis: { title: { text: Array.from(units).join(' / ') || 'length' } }
  });

  // Fixit records per problem per recipe (the paper's Fig. 4), when the workspace holds builds:
  // the records each build's dataset keeps, one bar group per problem, one bar per build's recipe.
  if (document.getElementById('plot-fixit')) {
    const fixit = rowsOf('fixit_records');
    const builds = Array.from(new Set(fixit.map(function (r) { return r.recipe + ' (' + r.build + ')'; })));
    const problems = Array.from(new Set(fixit.map(function (r) { return r.problem; })));
    plot('plot-fixit', builds.map(function (b) {
      return { type: 'bar', name: b, x: problems, y: problems.map(function (p) {
        return fixit.filter(function (r) { return r.recipe + ' (' + r.build + ')' === b && r.problem === p; })
          .reduce(function (n, r) { return n + r.in_dataset; }, 0);
      }) };
    }), {
      title: { text: 'Fixit records per problem per recipe' }, barmode: 'group',
      xaxis: { title: { text: 'problem' } }, yaxis: { title: { text: 'records in the dataset' } }
    });
  }

  // Drill-down: trajectories, filterable and sortable; turn details parsed on demand.
  const trajectories = rowsOf('trajectories').map(function (r, i) { return Object.assign({ index: i }, r); });
  const tbody = document.getElementById('traj-body');
  const filterText = document.getElementById('traj-filter');
  const filterProblem = document.getElementById('traj-problem');
  const filterState = document.getElementById('traj-state');
  const more = document.getElementById('traj-more');
  const count = document.getElementById('traj-count');
  options(filterProblem, [''].concat(Array.from(new Set(trajectories.map(function (t) { return t.trajectory_problem; })))), '');
  options(filterState, [''].concat(Array.from(new Set(trajectories.map(function (t) { return t.final_state; })))), '');
  const columns = [
    ['group', 'group', true], ['trajectory_run', 'run', true], ['trajectory_problem', 'problem', true], ['trajectory', 'traj', false],
    ['turns_stored', 'turns', false], ['finished', 'finished', false], ['final_state', 'final state', true],
    ['best_target_speedup', 'best target x', false], ['best_speedup', 'best x', false], ['states', 'states by turn', true]
  ];
  let sortKey = null, sortDir = 1, limit = 500;
  const head = document.getElementById('traj-head');
  columns.forEach(function (c) {
    const th = document.createElement('th');
    th.textContent = c[1];
    if (c[2]) th.className = 'l';
    th.addEventListener('click', function () { sortDir = sortKey === c[0] ? -sortDir : 1; sortKey = c[0]; render(); });
    head.appendChild(th);
  });
  function fmt(v, key) {
    if (v === null || v === undefined) return '\u2013';
    if (typeof v === 'number' && !Number.isInteger(v)) return v.toFixed(3);
    if (key === 'finished') return v ? 'yes' : 'no';
    return String(v);
  }
  function matches(t) {
    const q = filterText.value.trim().toLowerCase();
    if (filterProblem.value && t.trajectory_problem !== filterProblem.value) return false;
    if (filterState.value && t.final_state !== filterState.value) return false;
    if (!q) return true;
    return (t.group + ' ' + t.trajectory_run + ' ' + t.trajectory_problem + ' ' + t.states).toLowerCase().indexOf(q) >= 0;
  }
  function render() {
    let list = trajectories.filter(matches);
    if (sortKey) {
      list = list.slice().sort(function (a, b) {
        const x = a[sortKey], y = b[sortKey];
        if (x === y) return a.index - b.index;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sortDir;
      });
    }
    const frag = document.createDocumentFragment();
    list.slice(0, limit).forEach(function (t) {
      const tr = document.createElement('tr');
      tr.className = 'row';
      tr.dataset.index = String(t.index);
      columns.forEach(function (c) {
        const td = document.createElement('td');
        if (c[2]) td.className = 'l';
        if (c[0] === 'states') {
          t.states.split(' ').forEach(function (s, k) {
            const chip = document.createElement('span');
            chip.className = 'chip s-' + s;
            chip.title = 'turn ' + (k + 1) + ': ' + s;
            td.appendChild(chip);
          });
        } else td.textContent = fmt(t[c[0]], c[0]);
        tr.appendChild(td);
      });
      tr.addEventListener('click', function () { toggle(tr, t.index); });
      frag.appendChild(tr);
    });
    tbody.replaceChildren(frag);
    count.textContent = list.length + ' of ' + trajectories.length + ' trajectories';
    more.style.display = list.length > limit ? '' : 'none';
  }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function toggle(tr, index) {
    const next = tr.nextSibling;
    if (next && next.classList && next.classList.contains('detail')) { next.remove(); return null; }
    const turns = JSON.parse(document.getElementById('d-' + index).textContent);
    const row = document.createElement('tr');
    row.className = 'detail';
    const td = document.createElement('td');
    td.colSpan = columns.length;
    turns.forEach(function (t) {
      const box = el('div', undefined, 'turn');
      const title = el('div');
      title.appendChild(el('span', '', 'chip s-' + t.transition_state));
      title.appendChild(el('b', ' turn ' + t.turn + ': ' + t.state));
      title.appendChild(el('span', '  target executed: ' + fmt(t.target_executed) + ', speedup: ' + fmt(t.speedup_geomean) +
        ', reasoning: ' + (t.reasoning_tokens !== null ? t.reasoning_tokens + ' tokens' : t.reasoning_chars + ' characters'), 'muted'));
      box.appendChild(title);
      if (t.reason) box.appendChild(el('div', t.reason));
      if (t.shapes && t.shapes.length) {
        const st = el('table', undefined, 'grid');
        const h = el('tr');
        ['shape', 'candidate ms', 'library ms', 'speedup'].forEach(function (x) { h.appendChild(el('th', x)); });
        st.appendChild(h);
        t.shapes.forEach(function (s) {
          const r = el('tr');
          [s.shape, fmt(s.median_ms), fmt(s.baseline_median_ms), fmt(s.speedup)].forEach(function (x) { r.appendChild(el('td', x)); });
          st.appendChild(r);
        });
        box.appendChild(st);
      }
      [['feedback', t.feedback], ['code', t.code]].forEach(function (p) {
        if (!p[1]) return;
        const d = el('details');
        d.appendChild(el('summary', p[0] + ' (' + p[1].length + ' characters)'));
        d.appendChild(el('pre', p[1]));
        box.appendChild(d);
      });
      td.appendChild(box);
    });
    row.appendChild(td);
    tr.after(row);
    return turns.length;
  }
  [filterText, filterProblem, filterState].forEach(function (e) { e.addEventListener('input', function () { limit = 500; render(); }); });
  more.addEventListener('click', function () { limit += 500; render(); });
  render();

  // Self-check (#render-check, used by the browser test and the benchmark): what each plot holds,
  // read back from Plotly's own graph objects, and any error the page logged.
  if (location.hash === '#render-check') {
    const out = { errors: window.__ptxbenchErrors || [], plots: {}, trajectories_rendered: tbody.children.length };
    Object.keys(PLOTS).forEach(function (id) {
      const gd = PLOTS[id];
      out.plots[id] = {
        rendered: !!(gd._fullLayout && gd.querySelector('.main-svg')),
        traces: gd.data.map(function (t) { return { name: t.name || null, type: t.type, x: t.x || null, y: t.y || null, z: t.z || null }; })
      };
    });
    // Filter by the first problem, and sort by best speedup (descending), as a user would.
    const problem = trajectories.length ? trajectories[0].trajectory_problem : '';
    filterProblem.value = problem;
    filterProblem.dispatchEvent(new Event('input'));
    out.filter = { problem: problem, rows: tbody.querySelectorAll('tr.row').length };
    filterProblem.value = '';
    filterProblem.dispatchEvent(new Event('input'));
    const bestHeader = Array.from(head.children).find(function (th) { return th.textContent === 'best x'; });
    bestHeader.click();
    bestHeader.click();
    out.sorted_first = Array.from(tbody.querySelectorAll('tr.row')).slice(0, 3).map(function (tr) {
      return trajectories[Number(tr.dataset.index)].best_speedup;
    });
    sortKey = null;
    render();
    const first = tbody.querySelector('tr.row');
    out.first_trajectory_turns = first ? toggle(first, Number(first.dataset.index)) : null;
    out.first_trajectory_index = first ? Number(first.dataset.index) : null;
    out.render_ms = performance.now();
    const pre = document.createElement('pre');
    pre.id = 'render-check';
    pre.style.display = 'none';
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
    // The load event (every byte of the page parsed) comes after this script; add its time then.
    window.addEventListener('load', function () {
      out.load_ms = performance.now();
      pre.textContent = JSON.stringify(out);
    });
  }
})();
