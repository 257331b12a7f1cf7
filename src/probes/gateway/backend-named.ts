// Whether a gateway error names the backend: read where the request fails (litellm.ts marks the
// outcome) and again where the failure is attributed (attribution.ts).
/** LiteLLM wraps a provider's error as `<Provider>Exception - …` (`Hosted_vllmException - CUDA out of
 * memory`): the backend answered and refused the work. `Connection error` under the same wrapper is the
 * gateway failing to reach it, which says nothing of the backend's health. */
const BACKEND_SPOKE = /out of memory|EngineCore|EngineDead|\b[A-Za-z_]+Exception - (?!Connection error|Request timed out|APIConnectionError)/i;
/** As the runtimes write them: case-sensitive, so a model named cuda-coder or bge-oom-test says nothing. */
const BACKEND_WORDS = /\bCUDA\b|\bOOM\b/;
/** Where LiteLLM repeats the model asked for (`Passed model=…`, `Received Model Group=…`): a name, not words. */
const MODEL_NAMED = /\b(?:model|Model Group)=\S*/g;

export function namesBackend(error: string | undefined): boolean {
  if (error === undefined) return false;
  const said = error.replace(MODEL_NAMED, '');
  return BACKEND_WORDS.test(said) || BACKEND_SPOKE.test(said);
}
