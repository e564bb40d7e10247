/**
 * The one module that imports Vega: a Vega-Lite spec (chart-specs.ts) to an
 * SVG string, in the Worker. Vega compiles its expressions with
 * `new Function` by default, which workerd (no code generation from
 * strings) forbids; parsed with `ast: true` and evaluated by
 * vega-interpreter, it needs none. The routes load this module with a
 * dynamic import(), so a search isolate never evaluates Vega.
 *
 * What Vega writes is escaped (text and attributes, vega-scenegraph's
 * markup), carries no `style` attribute (the pages' CSP allows nonce'd
 * style only), and gives every mark with a description an aria-label. Two
 * additions here: the root gets role="img", an aria-label, a <title> and a
 * <desc> (the chart's accessible name and description), and every mark
 * with an aria-label gets a <title> of it, which browsers show on hover.
 */
import { parse, View } from "vega";
import { expressionInterpreter } from "vega-interpreter";
import { compile, type TopLevelSpec } from "vega-lite";
import type { ChartSpec } from "./chart-specs.js";

const escapeText = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const escapeAttr = (s: string) => escapeText(s).replaceAll('"', "&quot;");

/**
 * A self-closing mark element with an aria-label, as vega-scenegraph writes it (its attribute values escape
 * &, <, > and ", so `[^"]*` is the whole value and holds no markup): it gets a <title> with the same text.
 */
const LABELLED_MARK = /<(path|rect|line|circle)((?:\s[^>]*?)?\saria-label="([^"]*)"[^>]*?)\/>/g;

/** The SVG of one chart: Vega's, with its accessible name and description, and hover titles on its marks. */
export async function renderSvg(spec: TopLevelSpec, label: { title: string; description: string }): Promise<string> {
  const view = new View(parse(compile(spec).spec, undefined, { ast: true }), { renderer: "none", expr: expressionInterpreter });
  try {
    const svg = await view.toSVG();
    const open = svg.indexOf(">", svg.indexOf("<svg")) + 1;
    if (!svg.startsWith("<svg") || open === 0) throw new Error("Vega wrote no <svg>");
    const root = svg.slice(0, open - 1).replace(/^<svg/, `<svg role="img" aria-label="${escapeAttr(label.title)}"`);
    const head = `${root}><title>${escapeText(label.title)}</title><desc>${escapeText(label.description)}</desc>`;
    return head + svg.slice(open).replace(LABELLED_MARK, (_m, tag: string, attrs: string, text: string) => `<${tag}${attrs}><title>${text}</title></${tag}>`);
  } finally {
    view.finalize();
  }
}

/** A chart as the route answers it: its spec drawn as SVG. */
export type RenderedChart = Omit<ChartSpec, "spec"> & { readonly svg: string };

/** Every chart of a plan, rendered one after another (Vega's work is CPU; nothing to overlap). */
export async function renderCharts(charts: readonly ChartSpec[]): Promise<RenderedChart[]> {
  const out: RenderedChart[] = [];
  for (const { spec, ...rest } of charts) out.push({ ...rest, svg: await renderSvg(spec, rest) });
  return out;
}
