// `seat export`: an incident's journal as a postmortem. Pure: the same view, head and clock give the
// same bytes, so the terminal writes it, Slack uploads it (files.uploadV2), and tests compare it.
import type { IncidentView } from '../incident/engine.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { clean } from '../probes/edge/text.ts';
import { chartsOf } from './charts.ts';
import { factsOf } from './facts.ts';
import { CHART_MARKER, toHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';

export interface PostmortemOptions {
  format: 'md' | 'html';
  /** The incident's chain head hash, from the store's verify(): printed so a reader can check it. */
  head: string;
  /** When the export is made: the document's only clock. */
  now: Date;
  /** The inventory: the site's description and the margin floor for the charts. */
  fleet?: Fleet;
}

export function renderPostmortem(view: IncidentView, o: PostmortemOptions): string {
  const facts = factsOf(view);
  const base = { head: o.head, now: o.now, ...(o.fleet ? { fleet: o.fleet } : {}) };
  if (o.format === 'md') return renderMarkdown(view, base, facts);
  const i = view.incident;
  const floor = o.fleet?.inventory.settings.marginFloorMiB;
  const charts = chartsOf(facts.snapshots, { start: i.openedAt, end: i.closedAt ?? o.now.toISOString(), ...(floor !== undefined ? { floorMiB: floor } : {}) });
  const markdown = renderMarkdown(view, { ...base, charts: charts.map((_, n) => CHART_MARKER(n)) }, facts);
  return toHtml(markdown, { title: `${i.drill ? 'DRILL — ' : ''}Postmortem #${i.id}: ${clean(i.title)}`, drill: i.drill, charts });
}

export { TO_WRITE } from './markdown.ts';
