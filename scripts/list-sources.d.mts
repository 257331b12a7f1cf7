/** Every file and folder under `src`, relative to it ('' is `src` itself): what bin/seat.js stats. */
export function listSources(src: string): { dirs: string[]; files: string[] };
