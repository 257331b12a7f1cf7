// The drill on loopback: where its stand-in executables and its inventory lie, and the state its
// UPSes start in. A drill is started as a scenario (scenarios/start.ts): `npm start`, `seat drill`
// and the bot all play one, fv-site-dark unless asked otherwise.
import { fileURLToPath } from 'node:url';

export const DRILL_BIN = fileURLToPath(new URL('./bin', import.meta.url));
export const DRILL_INVENTORY = fileURLToPath(new URL('./fleet.yaml', import.meta.url));

/** The drill UPSes: fv's Eaton 1500 VA (no realpower.nominal, as such units report) and ana's. */
export const UPS_STATE: Record<string, Record<string, string>> = {
  fvups: { 'ups.status': 'OL', 'ups.load': '34', 'ups.power.nominal': '1500', 'battery.charge': '100', 'battery.runtime': '1540', 'ups.mfr': 'EATON', 'ups.model': '5S 1500' },
  anaups: { 'ups.status': 'OL', 'ups.load': '41', 'ups.realpower.nominal': '2700', 'battery.charge': '100', 'battery.runtime': '2210', 'ups.mfr': 'EATON', 'ups.model': '9PX 3000' },
};
