// Light, dark, or the system's: kept in localStorage, applied as <html data-theme>; the widgets get the
// effective theme as their `theme` attribute.
import { useEffect, useState } from "preact/hooks";

export type ThemeChoice = "system" | "light" | "dark";
const KEY = "svc-console:theme";
const media = matchMedia("(prefers-color-scheme: dark)");

const stored = (): ThemeChoice => {
  const v = localStorage.getItem(KEY);
  return v === "light" || v === "dark" ? v : "system";
};
const effective = (c: ThemeChoice) => (c === "system" ? (media.matches ? "dark" : "light") : c);

export function applyTheme(choice: ThemeChoice = stored()) {
  document.documentElement.dataset.theme = effective(choice);
}

export function useTheme() {
  const [choice, setChoice] = useState<ThemeChoice>(stored);
  const [, setTick] = useState(0);
  useEffect(() => {
    const onChange = () => {
      applyTheme(stored());
      setTick((n) => n + 1);
    };
    media.addEventListener("change", onChange);
    return () => media.removeEventListener("change", onChange);
  }, []);
  const choose = (c: ThemeChoice) => {
    if (c === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, c);
    applyTheme(c);
    setChoice(c);
  };
  return { choice, theme: effective(choice), choose };
}
