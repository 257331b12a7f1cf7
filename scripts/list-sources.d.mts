/** The folders the build compiles and copies from: what bin/seat.js checks. */
export const SOURCE_FOLDERS: readonly string[];
/** Every file and folder under `folders` (default SOURCE_FOLDERS), relative to `root`: what bin/seat.js stats. */
export function listSources(root: string, folders?: readonly string[]): { dirs: string[]; files: string[] };
