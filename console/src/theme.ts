// Light and dark themes: the system's preference until the user picks one (remembered in localStorage).
import { signal } from '@preact/signals';

type Theme = 'light' | 'dark';
const key = 'plc-console.theme';

function initial(): Theme {
  const saved = localStorage.getItem(key);
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export const theme = signal<Theme>(initial());

export function applyTheme(): void {
  document.documentElement.dataset.theme = theme.value;
}

export function toggleTheme(): void {
  theme.value = theme.value === 'dark' ? 'light' : 'dark';
  localStorage.setItem(key, theme.value);
  applyTheme();
}
