/** The hints of cai doctor's checks (src/doctor returns their codes), in the words of the CLI's flags. */
import type { Words } from '../../errors.js';

export const DOCTOR_HINTS: Words = {
  doctor_no_profile: () => "create one with 'cai config init', or pass --config FILE / --env NAME",
  doctor_private_ca: () => 'a self-signed or private CA: pass --ca FILE with the issuing CA, or serve the full chain',
  doctor_secret_unset: ({ variable, secret }) => {
    const flag = secret === 'callback' ? '--callback-secret' : '--secret';
    return `export ${variable}, or pass ${flag}-env NAME / ${flag}-file PATH to each command`;
  },
  doctor_temp_unwritable: () => 'set TMPDIR to a writable directory, or pass --repro-dir DIR to conformance runs',
  doctor_no_target: () => 'pass --to URL, or use a profile whose environment has provider_endpoint or events_url',
};
