/**
 * The report's stylesheet: one inline <style> whose sha256 goes into the Content-Security-Policy.
 * Colours are CSS variables: light by default, dark under `prefers-color-scheme: dark`, and forced
 * back to ink-on-paper for print, where every stack is expanded and the interactive chrome is hidden.
 */
/** Light palette: the default, and forced again for print. */
const LIGHT = `
--bg:#ffffff;--fg:#1c2430;--muted:#5a6574;--card:#f5f7fa;--border:#d5dbe3;--accent:#0a5bc4;--row:#eef2f7;
--err:#b42318;--err-bg:#fdecea;--warn:#9a5b00;--warn-bg:#fff4e0;--info:#2459b3;--info-bg:#e8f0fd;--ok:#17743a;--ok-bg:#e6f4ea;
--code:#f0f3f7;--user:#0a5bc4;--dep:#6d4bb3;--std:#5a6574;--rt:#8a94a3;
--wk-send:#d1495b;--wk-recv:#e07b39;--wk-select:#c9a227;--wk-forever:#8e1b3f;--wk-lock:#7a52c7;--wk-wg:#a05195;
--wk-io:#2f7ed8;--wk-sleep:#3aa3a3;--wk-sys:#4c6e91;--wk-run:#2e9e5b;--wk-rt:#9aa4b1;--wk-unknown:#b8bfc8;
--s0:#0072b2;--s1:#d55e00;--s2:#009e73;--s3:#cc79a7;--s4:#e6a700;--s5:#7b4fc9;--s6:#6b6b6b;--s7:#8c564b`;

/** Dark palette, under `prefers-color-scheme: dark` (on screen only: print uses LIGHT). */
const DARK = `
--bg:#0e1116;--fg:#e3e8ef;--muted:#9aa5b4;--card:#161b22;--border:#2d3541;--accent:#6cb0ff;--row:#1b222c;
--err:#ff7b72;--err-bg:#3a1616;--warn:#f0b45a;--warn-bg:#33250d;--info:#79b0ff;--info-bg:#14243d;--ok:#56d37f;--ok-bg:#11301d;
--code:#1b212a;--user:#6cb0ff;--dep:#b59cf0;--std:#9aa5b4;--rt:#6e7886;
--wk-send:#ff6b7d;--wk-recv:#ff9a5c;--wk-select:#e8c547;--wk-forever:#e0527a;--wk-lock:#a987f0;--wk-wg:#d27cc4;
--wk-io:#5ea8ff;--wk-sleep:#5cc9c9;--wk-sys:#8aa9cc;--wk-run:#4fd18a;--wk-rt:#7d8796;--wk-unknown:#5d6673;
--s0:#56a8f5;--s1:#ff8a3d;--s2:#3fd1a0;--s3:#f08ccf;--s4:#ffd23d;--s5:#b69cff;--s6:#b0b0b0;--s7:#d4a27f`;

export const CSS = `
:root{color-scheme:light dark;${LIGHT}}
@media screen and (prefers-color-scheme:dark){:root{${DARK}}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg)}
body{margin:0 auto;max-width:1180px;padding:0 24px 48px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
code,pre,.mono,.fn,.loc{font-family:ui-monospace,"SFMono-Regular","Cascadia Mono","DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
h1{font-size:22px;margin:0}h2{font-size:19px;margin:36px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--border)}
h3{font-size:17px;margin:0}h4{font-size:14px;margin:14px 0 4px}section>h3{margin:16px 0 4px;font-size:15px}
.muted{color:var(--muted)}
header.top{padding:24px 0 8px}
.sources{color:var(--muted);font-size:13px;margin:4px 0 0;word-break:break-all}
.verdict{display:flex;align-items:center;gap:14px;margin:18px 0 6px;padding:16px 20px;border-radius:10px;border:1px solid var(--border)}
.verdict .big{font-size:26px;font-weight:700}
.verdict.bad{background:var(--err-bg);border-color:var(--err)}.verdict.bad .big{color:var(--err)}
.verdict.good{background:var(--ok-bg);border-color:var(--ok)}.verdict.good .big{color:var(--ok)}
.verdict .sub{color:var(--muted)}
.headline{margin:10px 0;padding:10px 14px;border-left:4px solid var(--err);background:var(--card);white-space:pre-wrap;word-break:break-word}
.stats{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.stat{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:8px 14px;min-width:120px}
.stat b{display:block;font-size:20px}.stat span{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
nav.toc{position:sticky;top:0;z-index:2;background:var(--bg);border-bottom:1px solid var(--border);padding:8px 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:14px}
.finding{border:1px solid var(--border);border-left:6px solid var(--info);border-radius:10px;padding:16px 20px;margin:14px 0;background:var(--card)}
.finding.sev-error{border-left-color:var(--err)}.finding.sev-warning{border-left-color:var(--warn)}
.finding header{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.badge{display:inline-block;font-size:12px;font-weight:600;padding:1px 8px;border-radius:999px;text-transform:uppercase;letter-spacing:.04em}
.badge.sev-error{background:var(--err-bg);color:var(--err)}.badge.sev-ok{background:var(--ok-bg);color:var(--ok)}.badge.sev-warning{background:var(--warn-bg);color:var(--warn)}.badge.sev-info{background:var(--info-bg);color:var(--info)}
.rule{color:var(--muted);font-size:12px}
dl.www{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:12px 0}
dl.www dt{font-weight:700;color:var(--muted);text-transform:uppercase;font-size:12px;letter-spacing:.05em;padding-top:2px}
dl.www dd{margin:0;white-space:pre-wrap;word-break:break-word}
dl.www dd.fix{font-weight:600}
dl.www code,ul.facts code{background:var(--code);border:1px solid var(--border);border-radius:4px;padding:0 4px;font-size:13px}
ul.facts{margin:8px 0;padding-left:20px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--border);vertical-align:top}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
tbody tr:hover{background:var(--row)}
th button{all:unset;cursor:pointer}th button:focus-visible{outline:2px solid var(--accent)}
th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}
.evidence{margin:10px 0;font-size:14px;background:var(--bg)}
.site{font-weight:600;word-break:break-all}.loc{color:var(--muted);word-break:break-all}
.labels{font-size:12px;color:var(--muted);word-break:break-all}
.wk{white-space:nowrap}.wk::before{content:"";display:inline-block;width:.65em;height:.65em;border-radius:50%;margin-right:6px;background:var(--c,var(--wk-unknown))}
.wk-chan-send{--c:var(--wk-send)}.wk-chan-receive{--c:var(--wk-recv)}.wk-select{--c:var(--wk-select)}.wk-blocked-forever{--c:var(--wk-forever)}
.wk-mutex,.wk-rwmutex,.wk-cond,.wk-semaphore{--c:var(--wk-lock)}.wk-waitgroup{--c:var(--wk-wg)}
.wk-io{--c:var(--wk-io)}.wk-sleep{--c:var(--wk-sleep)}.wk-syscall{--c:var(--wk-sys)}.wk-running,.wk-runnable{--c:var(--wk-run)}
.wk-runtime{--c:var(--wk-rt)}.wk-unknown{--c:var(--wk-unknown)}
svg.chart{max-width:100%;height:auto;display:block;font-family:system-ui,sans-serif}svg.chart.wide{width:100%;max-width:1000px}
svg.chart text{fill:var(--fg);font-size:13px}svg.chart text.val,svg.chart text.tick{fill:var(--muted);font-size:12px}
svg.chart .bar rect{fill:var(--c)}
svg.chart line.grid{stroke:var(--border);stroke-width:1}svg.chart line.axis{stroke:var(--muted);stroke-width:1}
.series{--c:var(--s0)}.s1{--c:var(--s1)}.s2{--c:var(--s2)}.s3{--c:var(--s3)}.s4{--c:var(--s4)}.s5{--c:var(--s5)}.s6{--c:var(--s6)}.s7{--c:var(--s7)}.s0{--c:var(--s0)}
svg.chart .series polyline{fill:none;stroke:var(--c);stroke-width:2.5}svg.chart .series circle{fill:var(--c);stroke:var(--bg);stroke-width:1.5}
svg.swatch rect{fill:var(--c)}
svg.sharebar{vertical-align:middle;margin-left:6px;width:60px;height:8px}svg.sharebar rect{height:8px;rx:2px;fill:var(--accent)}svg.sharebar rect.track{fill:var(--row)}
ul.legend{list-style:none;padding:0;margin:8px 0;display:flex;flex-wrap:wrap;gap:4px 18px;font-size:13px}
.controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:8px 0 10px}
.controls input,.controls select,.controls button{font:inherit;padding:5px 10px;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg)}
.controls input{min-width:280px;flex:1}
details.stack{border:1px solid var(--border);border-radius:8px;margin:8px 0;background:var(--card)}
details.stack>summary{cursor:pointer;padding:8px 12px;list-style-position:outside;margin-left:14px}
details.stack[open]>summary{border-bottom:1px solid var(--border)}
details.stack:target{outline:2px solid var(--accent)}
.meta{padding:8px 14px 0;font-size:13px}.meta div{margin:2px 0;word-break:break-all}
ol.frames{margin:6px 0 10px;padding:0 14px 0 44px}
ol.frames li{padding:2px 0;word-break:break-all}
ol.frames .fn{display:block}ol.frames .loc{display:block;padding-left:16px}
.o-user .fn{color:var(--user);font-weight:700}.o-dependency .fn{color:var(--dep)}.o-stdlib .fn{color:var(--std)}.o-runtime .fn{color:var(--rt)}
.site-frame{background:var(--warn-bg);border-radius:4px}
.tag{font-size:11px;border:1px solid var(--border);border-radius:4px;padding:0 4px;margin-left:6px;color:var(--muted)}
figure.excerpt{margin:10px 0}figure.excerpt figcaption{font-size:13px;color:var(--muted);display:flex;gap:10px;align-items:center}
figure.excerpt p{margin:4px 0 0}figure.excerpt pre{margin:6px 0 0}pre .hl{display:inline-block;min-width:100%;background:var(--warn-bg);color:var(--fg);font-weight:700}
.badge.proven{background:var(--err);color:#fff;margin-left:6px}.badge.conf-high{background:var(--err-bg);color:var(--err)}.badge.conf-medium{background:var(--warn-bg);color:var(--warn)}.badge.conf-low{background:var(--row);color:var(--muted)}
pre{background:var(--code);border:1px solid var(--border);border-radius:6px;padding:10px 12px;overflow-x:auto;white-space:pre}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:22px}ul.tree{padding-left:0}
ul.tree li{position:relative;padding:3px 0}
ul.tree ul li::before{content:"└";position:absolute;left:-16px;color:var(--muted)}
.cnt{font-variant-numeric:tabular-nums;font-weight:700}
.delta-up{color:var(--err);font-weight:700}.delta-down{color:var(--ok);font-weight:700}
.state{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;font-weight:600;white-space:nowrap;background:var(--row);color:var(--muted)}
.state-growing,.status-leaking{background:var(--err-bg);color:var(--err)}.state-rising-inconclusive,.status-suspect{background:var(--warn-bg);color:var(--warn)}.state-stable,.state-shrinking,.status-healthy{background:var(--ok-bg);color:var(--ok)}.state-bounded{background:var(--info-bg);color:var(--info)}
.cards.fleet .card b{display:block;font-size:22px}.fleet-table td{vertical-align:middle}.fleet-table svg{display:block}
svg.mini polyline{fill:none;stroke:var(--accent);stroke-width:2}svg.mini circle{fill:var(--accent)}svg.mini.st-leaking polyline{stroke:var(--err)}svg.mini.st-leaking circle{fill:var(--err)}svg.mini.st-suspect polyline{stroke:var(--warn)}svg.mini.st-suspect circle{fill:var(--warn)}
.stat.st-leaking b{color:var(--err)}.stat.st-suspect b{color:var(--warn)}.stat.st-healthy b{color:var(--ok)}
section.process ul.process-findings{margin:6px 0 0;padding-left:20px}section.process h3 .state,section.process h3 .status{margin-left:8px;vertical-align:middle}
.notes li{font-size:13px}
.chart-row{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}.chart-row svg.chart{flex:0 1 640px}
dl.meanings{flex:1 1 280px;display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:4px 0;font-size:13px}
dl.meanings dt{font-weight:600}dl.meanings dd{margin:0;color:var(--muted)}
ol.summary{margin:4px 0 10px;padding-left:24px;font-size:16px;font-weight:600}ol.summary a{color:var(--fg)}
footer{margin-top:40px;color:var(--muted);font-size:12px}
@media print{
:root{color-scheme:light;${LIGHT}--card:#fff;--code:#f6f6f6;--accent:#0a4aa0}
html,body{background:#fff;color:#000}
body{max-width:none;padding:0;font-size:11pt}
nav.toc,.controls,.no-print{display:none!important}
details.stack>summary{list-style:none;margin-left:0}
details::details-content{content-visibility:visible;display:block}
.finding,details.stack,figure.excerpt,svg.chart{break-inside:avoid}
h2{break-after:avoid}
a{color:inherit}
tr[hidden]{display:table-row}
}
`.trim();
