/* tfevents.h: TensorBoard event files (events.out.tfevents.*) into runs.
 *
 * An event file is a TFRecord file (records of a little-endian uint64
 * length, the masked CRC-32C of those 8 bytes, the data, the masked
 * CRC-32C of the data) whose records are tensorboard.Event protobufs.
 * Each scalar becomes a row of the series named by its tag in
 * snake_case ("train/loss" gives train_loss), with the columns step,
 * wall_time and value; a row's line is its record's number (1-based).
 * The fields are file_version, records and skipped_values. */
#ifndef LOGDOWN_TFEVENTS_H
#define LOGDOWN_TFEVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/run.h"

/* Does head, a file's first len bytes, start with a whole TFRecord
 * whose checksums hold and whose Event has a file_version starting
 * "brain.Event:"?  What detection asks of a file by its content. */
bool tfevents_sniff(const char *head, size_t len);

/* Reads the event file at path into r; `shown` names it in
 * diagnostics.  A file whose first record is not an event file's is an
 * error (false).  A record cut short, or whose length's checksum is
 * wrong, ends the reading with a warning at its record; a record whose
 * data's checksum is wrong, or whose event cannot be decoded, is
 * skipped with a warning.  What came before is kept either way. */
bool tfevents_read(struct run *r, const char *path, const char *shown, struct diag *d);

/* The event file open as fd as text, for its log page: a line a
 * record, so that a row's line (its record number) is the line that
 * shows it: "step 5  wall_time 1721000300  Loss/train = 0.2", images
 * and other values skipped named so, a damaged record as the warning the
 * reader gives.  Returns a new descriptor of a temporary file holding
 * the text, at its start (caller closes), or -1 with errno set (EINVAL
 * when fd's first record is not an event file's).  fd's offset moves. */
int tfevents_text(int fd);

#endif
