// `npm run bench`: every figure is a ratio against a baseline measured in the same run.
import { benchAck } from './ack.ts';
import { benchExport } from './export.ts';
import { benchJournal } from './journal.ts';
import { benchProbe } from './probe.ts';
import { benchProbeCli } from './probe-cli.ts';
import { benchProbeScale } from './probe-scale.ts';
import { benchInventoryLoad } from './inventory-load.ts';
import { benchStartup } from './startup.ts';
import { benchStepAck } from './step-ack.ts';

const probe = await benchProbe();
for (const l of probe.lines) console.log(l);
const probeCli = await benchProbeCli();
for (const l of probeCli.lines) console.log(l);
const probeScale = await benchProbeScale();
for (const l of probeScale.lines) console.log(l);
const inventory = await benchInventoryLoad();
for (const l of inventory.lines) console.log(l);
const ack = await benchAck();
for (const l of ack.lines) console.log(l);
const step = await benchStepAck();
for (const l of step.lines) console.log(l);
const journal = await benchJournal();
for (const l of journal.lines) console.log(l);
const exported = await benchExport();
for (const l of exported.lines) console.log(l);
for (const l of benchStartup().lines) console.log(l);
