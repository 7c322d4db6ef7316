import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";
import { dayLabel, daysInRange, formatCount, RANGE_PRESETS, rangeError, rangeFromSearch, searchForRange, type Preset, type Range, type RangeChoice } from "./series.ts";

/** The range of an analytics screen, kept in the address bar (`?days=7`, `?from=…&to=…`), so Back, reload and a shared address keep it. */
export function useRange(): RangeChoice & { choose: (choice: { preset: Preset } | { range: Range }) => void } {
  const [params, setParams] = useSearchParams();
  const choice = rangeFromSearch(params, new Date());
  return { ...choice, choose: (next) => setParams((current) => searchForRange(current, next)) };
}

/** The presets (7, 30, 90 days, as pressed buttons) and a from/to form for any other range (UTC days). */
export function RangePicker({ value }: { value: ReturnType<typeof useRange> }) {
  const [from, setFrom] = useState(value.range.from);
  const [to, setTo] = useState(value.range.to);
  const [error, setError] = useState<string | null>(null);
  // Another range chosen (a preset, Back, a link): the form shows it.
  useEffect(() => {
    setFrom(value.range.from);
    setTo(value.range.to);
  }, [value.range.from, value.range.to]);
  const days = daysInRange(value.range);
  return (
    <div className="range-picker">
      <div className="presets" role="group" aria-label="Range presets">
        {RANGE_PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            className={value.preset === preset ? undefined : "ghost"}
            aria-pressed={value.preset === preset}
            onClick={() => {
              setError(null);
              value.choose({ preset });
            }}
          >
            {preset} days
          </button>
        ))}
      </div>
      <form
        className="range-form"
        aria-label="Choose a range"
        onSubmit={(e) => {
          e.preventDefault();
          const problem = rangeError({ from, to });
          setError(problem);
          if (!problem) value.choose({ range: { from, to } });
        }}
      >
        <label>
          From <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} required aria-invalid={Boolean(error)} aria-describedby={error ? "range-error" : undefined} />
        </label>
        <label>
          To <input type="date" value={to} onChange={(e) => setTo(e.target.value)} required aria-invalid={Boolean(error)} aria-describedby={error ? "range-error" : undefined} />
        </label>
        <button type="submit" className="ghost">
          Show range
        </button>
      </form>
      <p className="muted small range-now" aria-live="polite">
        {dayLabel(value.range.from, true)} – {dayLabel(value.range.to, true)} · {formatCount(days)} {days === 1 ? "day" : "days"}, UTC
      </p>
      {(error ?? value.error) ? (
        <p className="error" id="range-error" role="alert">
          {error ?? value.error}
        </p>
      ) : null}
    </div>
  );
}
