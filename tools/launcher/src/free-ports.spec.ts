import { describe, expect, it } from 'vitest';
import { FREE_PORTS } from './free-ports.ts';
import { launcherSchema, loadLauncherSettings } from './settings.ts';

describe('FREE_PORTS', () => {
  it("names every port setting of the launcher's, and nothing else", () => {
    const ports = Object.keys(launcherSchema.shape).filter((name) => /_PORT(_BASE)?$/.test(name));
    expect(Object.keys(FREE_PORTS).sort()).toEqual(ports.sort());
  });

  it('asks for a free port in each', () => {
    const settings = loadLauncherSettings({ ...FREE_PORTS });
    for (const name of Object.keys(FREE_PORTS)) expect(settings[name as keyof typeof FREE_PORTS]).toBe(0);
  });
});
