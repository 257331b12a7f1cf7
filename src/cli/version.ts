// Moved to src/version.ts (the bot's heartbeat reads it too); the CLI's name for it stays.
export { PACKAGE_NAME, readVersion } from '../version.ts';
