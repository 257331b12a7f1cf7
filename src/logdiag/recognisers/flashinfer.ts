// FlashInfer's autotuner catching an OOM while it profiles a tactic: `[Autotuner]: OOM detected,
// falling back to default tactic`. The request still succeeds, on a slower kernel (seed 000), so
// the scanner counts these per minute instead of reporting each one.
const FALLBACK = /\[Autotuner\]:?\s*OOM detected\b.{0,40}?fall(?:ing)? back/i;

export function flashinferFallback(text: string): boolean {
  return text.includes('Autotuner') && FALLBACK.test(text);
}

