/** The hints of the sending commands' coded errors (src/send), in the words of their flags. */
import type { Words } from '../../errors.js';

export const SEND_HINTS: Words = {
  'option:body': () => '--body',
  empty_body: () => 'pass --body FILE, pipe the body on stdin, or use --sample',
  bad_resume_file: () => 'pass the file a previous run wrote with --output',
};
