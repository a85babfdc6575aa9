/* gencorpus.c: the benchmark corpus of `make bench`, deterministic and
 * seedable (the shape of ../shared/bench/gen-corpus, in C so that the
 * 1 GB log takes seconds, not minutes).
 *
 *   gencorpus [--seed N] [--log-size SIZE]... [--pages N]... [--points N]...
 *             [--reports N]... TARGET
 *
 * writes under TARGET:
 *   logs/cerebras-SIZE.log  one Cerebras-style training run of about SIZE
 *                           bytes (k/M/G decimal, Ki/Mi/Gi binary): the
 *                           compile/appliance preamble, a "| Train
 *                           Device=CSX, Step=N, Loss=..., Rate=...,
 *                           GlobalRate=..." line every 100 steps, checkpoint,
 *                           poll, heartbeat and WARNING lines, the closing
 *                           "Processed N sample(s) in S seconds."
 *   site-N/                 N homework-style reports (front matter title and
 *                           date, headings, emphasis, code spans, links, GFM
 *                           tables, fenced code, lists, quotes) in
 *                           content/reports/, that logdown and Hugo both build
 *                           (site.yaml for logdown; config.toml and
 *                           layouts/_default/ for Hugo)
 *   chart-N/                a logdown project with one report whose {chart}
 *                           draws the N-point CSV content/loss/points.csv
 *                           (step,loss), which the peers plot too
 *   reports-N/              N reports content/r-NNNNN/index.md, each with a
 *                           small log run.log and a value taken from it
 *
 * The same seed and options give byte-identical files.  A log's content
 * does not depend on its size (a smaller log is a prefix of a larger one
 * up to its closing lines) and page i depends only on (seed, i), so
 * site-1000 is the first 1000 pages of site-10000. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- random numbers: splitmix64, the same on every machine ---- */

struct rng {
	uint64_t s;
};

static struct rng rng_make(uint64_t a, uint64_t b)
{
	struct rng r = {a * 0x9E3779B97F4A7C15u ^ (b + 0x632BE59BD9B4E019u)};
	return r;
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_real(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [lo, hi]. */
static int rng_int(struct rng *r, int lo, int hi)
{
	return lo + (int)(rng_real(r) * (hi - lo + 1));
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(r, a) ((a)[(size_t)(rng_real(r) * COUNT(a))])

/* Roughly normal(0, 1): the sum of four uniforms, scaled. */
static double noise(struct rng *r)
{
	return (rng_real(r) + rng_real(r) + rng_real(r) + rng_real(r) - 2.0) * 1.7320508;
}

/* Rounded to fp16's 11 significant bits, like a logged loss. */
static double fp16(double x)
{
	if (x <= 0.0)
		return 0.0;
	int e = 0;
	while (x >= 2.0) {
		x *= 0.5;
		e++;
	}
	while (x < 1.0) {
		x *= 2.0;
		e--;
	}
	x = (double)(int64_t)(x * 1024.0 + 0.5) / 1024.0;
	while (e > 0) {
		x *= 2.0;
		e--;
	}
	while (e < 0) {
		x *= 0.5;
		e++;
	}
	return x;
}

/* ---- output ---- */

static void die(const char *what, const char *path)
{
	fprintf(stderr, "gencorpus: %s: %s: %s\n", path, what, strerror(errno));
	exit(3);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "gencorpus: out of memory\n");
		abort();
	}
	return p;
}

/* A growing text; with a file, written out whenever it passes 1 MiB. */
struct text {
	char *p;
	size_t len, cap;
	FILE *f;
	const char *path;
	uint64_t total; /* bytes put so far, flushed or not */
};

static void text_flush(struct text *t)
{
	if (t->f && t->len && fwrite(t->p, 1, t->len, t->f) != t->len)
		die("cannot write", t->path);
	if (t->f)
		t->len = 0;
}

static void text_printf(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void text_printf(struct text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = t->cap - t->len;
		int n = vsnprintf(t->p ? t->p + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			fprintf(stderr, "gencorpus: bad format\n");
			abort();
		}
		if ((size_t)n < room) {
			t->len += (size_t)n;
			t->total += (size_t)n;
			break;
		}
		t->cap = t->cap * 2 + (size_t)n + 256;
		t->p = xrealloc(t->p, t->cap);
	}
	if (t->f && t->len >= (1u << 20))
		text_flush(t);
}

static void text_put(struct text *t, const char *s)
{
	text_printf(t, "%s", s);
}

static void make_dirs(const char *path)
{
	char *p = strdup(path);
	if (!p)
		abort();
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			die("cannot make folder", p);
		*s = '/';
	}
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		die("cannot make folder", p);
	free(p);
}

static char *join(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *join(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		die("cannot create", path);
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die("cannot write", path);
}

static void write_string(const char *path, const char *s)
{
	write_file(path, s, strlen(s));
}

/* ---- the log ---- */

/* Wall clock in milliseconds, printed as Python logging's asctime. */
struct clock {
	int y, mo, d;
	int64_t ms;
};

static int month_days(const struct clock *c)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (c->mo == 2 && ((c->y % 4 == 0 && c->y % 100 != 0) || c->y % 400 == 0))
		return 29;
	return days[c->mo - 1];
}

static void clock_advance(struct clock *c, double ms)
{
	c->ms += (int64_t)ms;
	while (c->ms >= 86400000) {
		c->ms -= 86400000;
		if (++c->d > month_days(c)) {
			c->d = 1;
			if (++c->mo > 12) {
				c->mo = 1;
				c->y++;
			}
		}
	}
}

static void emit(struct text *t, struct clock *c, const char *level, double dt_ms,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void emit(struct text *t, struct clock *c, const char *level, double dt_ms,
		 const char *fmt, ...)
{
	clock_advance(c, dt_ms);
	int64_t ms = c->ms;
	text_printf(t, "%04d-%02d-%02d %02d:%02d:%02d,%03d %s:   ", c->y, c->mo, c->d,
		    (int)(ms / 3600000), (int)(ms / 60000 % 60), (int)(ms / 1000 % 60),
		    (int)(ms % 1000), level);
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	text_printf(t, "%s\n", msg);
}

static void job_id(struct rng *r, char out[29])
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	memcpy(out, "wsjob-", 6);
	for (int i = 0; i < 22; i++)
		out[6 + i] = alnum[(size_t)(rng_real(r) * 36)];
	out[28] = '\0';
}

/* The preamble of a run, up to "Beginning appliance run". */
static void log_preamble(struct text *t, struct clock *c, struct rng *r, int batch,
			 const char *compile_id, const char *exec_id)
{
	const char *md = "model_dir";
	emit(t, c, "INFO", 0, "Effective batch size is %d.", batch);
	emit(t, c, "INFO", 16,
	     "Checkpoint autoloading is enabled. Looking for latest checkpoint in \"%s\" directory "
	     "with the following naming convention: `checkpoint_(step)(_timestamp)?.mdl`.", md);
	emit(t, c, "INFO", 1, "No checkpoints were found in \"%s\".", md);
	emit(t, c, "INFO", 0, "No checkpoint was provided. Using randomly initialized model parameters.");
	emit(t, c, "INFO", 1216, "Saving checkpoint at step 0");
	emit(t, c, "INFO", 21347, "Saved checkpoint %s/checkpoint_0.mdl", md);
	emit(t, c, "INFO", 12827, "Compiling the model. This may take a few minutes.");
	emit(t, c, "INFO", 1,
	     "Defaulted to use the job-operator namespace as the usernode config "
	     "/opt/cerebras/config_v2 only has access to that namespace.");
	emit(t, c, "INFO", 1417, "Initiating a new image build job against the cluster server.");
	emit(t, c, "INFO", 85, "Custom worker image build is disabled from server.");
	emit(t, c, "INFO", 174, "Initiating a new compile wsjob against the cluster server.");
	emit(t, c, "INFO", 81, "compile job id: %s, remote log path: /n1/wsjob/workdir/job-operator/%s",
	     compile_id, compile_id);
	emit(t, c, "INFO", 10019,
	     "Poll ingress status: Waiting for job running, current job status: Scheduled, msg: "
	     "job is scheduled. ");
	emit(t, c, "INFO", 10006, "Poll ingress status: Waiting for job service readiness.");
	emit(t, c, "INFO", 20026, "Ingress is ready: Job ingress ready, poll ingress success.");
	emit(t, c, "INFO", 4521, "Pre-optimization transforms...");
	emit(t, c, "INFO", 4558, "Optimizing layouts and memory usage...");
	emit(t, c, "INFO", 80, "Gradient accumulation enabled");
	emit(t, c, "WARNING", 1,
	     "Gradient accumulation will search for an optimal micro batch size based on internal "
	     "performance models, which can lead to an increased compile time. Specify "
	     "`micro_batch_size` option in the 'train_input/eval_input' section of your .yaml "
	     "parameter file to set the gradient accumulation microbatch size, if an optimal "
	     "microbatch size is known.");
	for (int sub = 8; sub <= 128 && sub <= batch; sub *= 2)
		emit(t, c, "INFO", rng_int(r, 2000, 9000),
		     "Gradient accumulation trying sub-batch size %d...", sub);
	emit(t, c, "INFO", rng_int(r, 5000, 15000), "Exploring floorplans");
	emit(t, c, "INFO", rng_int(r, 5000, 9000), "Exploring data layouts");
	emit(t, c, "INFO", rng_int(r, 9000, 15000), "Optimizing memory usage");
	emit(t, c, "INFO", rng_int(r, 3000, 9000), "Gradient accumulation showed a benefit");
	emit(t, c, "INFO", rng_int(r, 2000, 9000), "Post-layout optimizations...");
	emit(t, c, "INFO", rng_int(r, 1000, 3000), "Allocating buffers...");
	emit(t, c, "INFO", rng_int(r, 500, 2000), "Code generation...");
	emit(t, c, "INFO", rng_int(r, 500, 2000), "Compiling image...");
	emit(t, c, "INFO", rng_int(r, 100, 500), "Compiling kernels");
	emit(t, c, "INFO", rng_int(r, 20000, 60000), "Compiling final image");
	emit(t, c, "INFO", rng_int(r, 20000, 60000),
	     "Compile artifacts successfully written to remote compile directory. "
	     "Compile hash is: cs_%019" PRIu64, rng_next(r) % 10000000000000000000u);
	emit(t, c, "INFO", 5, "Heartbeat thread stopped for %s.", compile_id);
	emit(t, c, "INFO", 8, "Compile was successful!");
	emit(t, c, "INFO", 9,
	     "Programming Cerebras Wafer Scale Cluster for execution. This may take a few minutes.");
	emit(t, c, "INFO", 1,
	     "Defaulted to use the job-operator namespace as the usernode config "
	     "/opt/cerebras/config_v2 only has access to that namespace.");
	emit(t, c, "INFO", 1410, "Initiating a new execute wsjob against the cluster server.");
	emit(t, c, "INFO", 85, "execute job id: %s, remote log path: /n1/wsjob/workdir/job-operator/%s",
	     exec_id, exec_id);
	emit(t, c, "INFO", 10010,
	     "Poll ingress status: Waiting for job running, current job status: Queueing, msg: job "
	     "is queueing. Job queue status: current job is top of queue but likely blocked by "
	     "running jobs, 1 execute job(s) running using 1 system(s). ");
	emit(t, c, "INFO", rng_int(r, 10000, 90000),
	     "Poll ingress status: Waiting for job running, current job status: Scheduled, msg: "
	     "job is scheduled. ");
	emit(t, c, "INFO", 10012, "Poll ingress status: Waiting for job service readiness.");
	emit(t, c, "INFO", 20031, "Ingress is ready: Job ingress ready, poll ingress success.");
	emit(t, c, "INFO", 1200, "Preparing to execute using 1 CSX");
	emit(t, c, "INFO", rng_int(r, 10000, 30000), "About to send initial weights");
	emit(t, c, "INFO", rng_int(r, 20000, 80000), "Finished sending initial weights");
	emit(t, c, "INFO", 6, "Finalizing appliance staging for the run");
	emit(t, c, "INFO", 40, "Waiting for device programming to complete");
	emit(t, c, "INFO", rng_int(r, 60000, 180000), "Device programming is complete");
	emit(t, c, "INFO", 1100, "Using network type: ROCE");
	emit(t, c, "INFO", 1,
	     "Waiting for input workers to prime the data pipeline and begin streaming ...");
	emit(t, c, "INFO", rng_int(r, 5000, 20000), "Input workers have begun streaming input data");
	emit(t, c, "INFO", 1300, "Appliance staging is complete");
	emit(t, c, "INFO", 1, "Beginning appliance run");
}

/* The training part of a run, as its progress lines go by. */
struct train {
	struct rng r;
	int batch, log_steps;
	double init_loss, floor_loss, tau, drift, run_ms;
	int64_t step, samples;
};

static void train_init(struct train *tr, struct rng *r, int batch, int log_steps)
{
	tr->r = rng_make(rng_next(r), 5);
	tr->batch = batch;
	tr->log_steps = log_steps;
	tr->init_loss = 10.5 + rng_real(r);
	tr->floor_loss = 2.2 + rng_real(r);
	tr->tau = 2500.0 + 2000.0 * rng_real(r);
	tr->drift = tr->run_ms = 0.0;
	tr->step = tr->samples = 0;
}

/* Steps on; returns the loss and sets *rate, *grate, *dt_ms. */
static double train_step(struct train *tr, double *rate, double *grate, double *dt_ms)
{
	tr->step += tr->log_steps;
	tr->drift = 0.98 * tr->drift + 0.02 * noise(&tr->r) * 40.0;
	*rate = 2950.0 + tr->drift + noise(&tr->r) * 15.0;
	*dt_ms = tr->log_steps * tr->batch * 1000.0 / *rate;
	tr->run_ms += *dt_ms;
	tr->samples += (int64_t)tr->log_steps * tr->batch;
	*grate = (double)tr->samples * 1000.0 / tr->run_ms;
	double loss = tr->floor_loss + (tr->init_loss - tr->floor_loss) / (1.0 + (double)tr->step / tr->tau);
	return fp16(loss * (1.0 + 0.015 * noise(&tr->r)));
}

static void train_line(struct text *t, struct clock *c, struct train *tr)
{
	double rate, grate, dt;
	double loss = train_step(tr, &rate, &grate, &dt);
	emit(t, c, "INFO", dt,
	     "| Train Device=CSX, Step=%" PRId64 ", Loss=%.5f, Rate=%.2f samples/sec, "
	     "GlobalRate=%.2f samples/sec", tr->step, loss, rate, grate);
}

static void log_epilogue(struct text *t, struct clock *c, struct rng *r, const struct train *tr,
			 const char *exec_id)
{
	emit(t, c, "INFO", rng_int(r, 5000, 15000), "Heartbeat thread stopped for %s.", exec_id);
	emit(t, c, "INFO", 5, "Training completed successfully!");
	emit(t, c, "INFO", 0, "Processed %" PRId64 " sample(s) in %.9f seconds.", tr->samples,
	     tr->run_ms / 1000.0);
}

static struct clock clock_start(struct rng *r)
{
	struct clock c = {2024, 1 + (int)(rng_real(r) * 12), 1 + (int)(rng_real(r) * 28), 0};
	c.ms = (int64_t)(rng_real(r) * 20 * 3600000);
	return c;
}

static void gen_log(const char *path, uint64_t size, uint64_t seed)
{
	struct rng r = rng_make(seed, 17);
	struct clock c = clock_start(&r);
	char compile_id[29], exec_id[29];
	job_id(&r, compile_id);
	job_id(&r, exec_id);
	const int batch = 512, ckpt_every = 10000;
	FILE *f = fopen(path, "wb");
	if (!f)
		die("cannot create", path);
	struct text t = {.f = f, .path = path};
	log_preamble(&t, &c, &r, batch, compile_id, exec_id);
	struct train tr;
	train_init(&tr, &r, batch, 100);
	/* The epilogue is about 300 bytes: stop short of it. */
	while (t.total + 400 < size) {
		train_line(&t, &c, &tr);
		if (tr.step % ckpt_every == 0) {
			int save_ms = rng_int(&r, 15000, 40000);
			emit(&t, &c, "INFO", 0, "Saving checkpoint at step %" PRId64, tr.step);
			emit(&t, &c, "INFO", save_ms, "Saved checkpoint model_dir/checkpoint_%" PRId64 ".mdl",
			     tr.step);
			tr.run_ms += save_ms;
		}
		double x = rng_real(&r);
		if (x < 0.004) {
			int dt = rng_int(&r, 1, 500);
			switch ((int)(x * 1250.0)) {
			case 0:
				emit(&t, &c, "INFO", dt,
				     "Poll ingress status: Waiting for job running, current job status: "
				     "Running, msg: job is running. ");
				break;
			case 1:
				emit(&t, &c, "INFO", dt,
				     "Poll ingress status: Waiting for job service readiness.");
				break;
			case 2:
				emit(&t, &c, "INFO", dt,
				     "Poll ingress status: Job ingress ready, dashboard: "
				     "https://grafana.cerebras1.lab/d/WebHNShVz/wsjob-dashboard?orgId=1"
				     "&var-wsjob=%s&from=now-1h&to=now", exec_id);
				break;
			case 3:
				emit(&t, &c, "WARNING", dt,
				     "Input pipeline is slow: waited 0.%03d s for the next batch.",
				     rng_int(&r, 1, 999));
				break;
			default:
				emit(&t, &c, "INFO", dt, "Heartbeat sent for %s.", exec_id);
				break;
			}
		}
	}
	if (tr.step % ckpt_every != 0) {
		emit(&t, &c, "INFO", 400, "Saving checkpoint at step %" PRId64, tr.step);
		emit(&t, &c, "INFO", rng_int(&r, 15000, 40000),
		     "Saved checkpoint model_dir/checkpoint_%" PRId64 ".mdl", tr.step);
	}
	log_epilogue(&t, &c, &r, &tr, exec_id);
	text_flush(&t);
	if (fclose(f) != 0)
		die("cannot write", path);
	free(t.p);
	fprintf(stderr, "%s: %" PRIu64 " bytes, last step %" PRId64 "\n", path, t.total, tr.step);
}

/* ---- the Markdown site ---- */

static const char *const MODELS[] = {
	"GPT-2 small", "GPT-2 medium", "GPT-3 XL", "BERT-base", "BERT-large", "LLaMA-7B", "T5-base",
	"a 125M decoder-only transformer", "RoBERTa-base"};
static const char *const DATASETS[] = {
	"the Pile", "OpenWebText", "C4", "WikiText-103", "BookCorpus", "SlimPajama",
	"a 10 GB subset of RedPajama", "TinyStories"};
/* %1$s is a model, %2$s a data set: each topic names at most one of them. */
static const char *const TOPICS[] = {
	"Training %s on a CS-2", "Learning-rate warmup ablation", "Batch size scaling",
	"Mixed precision and loss scaling", "Pretraining throughput for %s",
	"Gradient accumulation sweep", "Sequence length vs. throughput", "Checkpointing overhead",
	"Data loader bottlenecks", "Weight decay ablation", "Tokenizer comparison on %d",
	"Fine-tuning %s on %d", "Reproducing the %s loss curve", "Optimizer comparison: AdamW vs. SGD"};
static const char *const COURSES[] = {"CS 598", "CS 533", "ECE 508", "CS 498 AI", "DS 412"};
static const char *const KINDS[] = {"Homework", "Lab", "Assignment", "Project milestone", "Report"};
static const char *const NOUNS[] = {
	"loss", "throughput", "learning rate", "batch size", "warmup schedule", "checkpoint",
	"gradient norm", "validation loss", "sequence length", "data pipeline", "optimizer state",
	"compile step", "weight decay", "tokenizer", "evaluation run", "baseline", "sample rate",
	"global rate", "embedding layer", "attention block", "micro-batch size", "loss curve"};
static const char *const ADJS[] = {
	"stable", "noisy", "higher", "lower", "surprising", "consistent", "linear", "sub-linear",
	"expected", "unexpected", "smooth", "flat", "steep", "modest"};
static const char *const VERBS[] = {
	"reduces", "increases", "stabilizes", "dominates", "affects", "limits", "improves", "hurts",
	"matches", "explains", "tracks", "exceeds"};
static const char *const CONNECT[] = {
	"However,", "In contrast,", "As expected,", "Interestingly,", "Overall,", "In practice,",
	"Notably,", "For comparison,", "On the other hand,", "Finally,"};
static const char *const SECTIONS[] = {
	"Motivation", "Method", "Experimental setup", "Configuration", "Observations", "Ablations",
	"Throughput", "Convergence", "Limitations", "Future work", "Lessons learned",
	"Reproducibility"};
static const int BATCHES[] = {64, 128, 256, 512, 1024};

static void sentence(struct text *t, struct rng *r)
{
	int k = (int)(rng_real(r) * 8);
	const char *n1 = PICK(r, NOUNS), *n2 = PICK(r, NOUNS);
	switch (k) {
	case 0: {
		const char *m = PICK(r, MODELS), *d = PICK(r, DATASETS);
		int steps = rng_int(r, 1, 50) * 1000;
		text_printf(t, "We trained %s on %s for %d steps with a batch size of %d.", m, d, steps,
			    PICK(r, BATCHES));
		break;
	}
	case 1: {
		static const char *const cmp[] = {"better than", "worse than", "slightly better than",
						  "about the same as"};
		double a = 8 + 3 * rng_real(r), b = 2 + 2 * rng_real(r);
		int steps = rng_int(r, 1, 20) * 500;
		text_printf(t, "The %s dropped from %.2f to %.2f after %d steps, which is %s the baseline.",
			    n1, a, b, steps, PICK(r, cmp));
		break;
	}
	case 2: {
		const char *c = PICK(r, CONNECT), *v = PICK(r, VERBS), *n3 = PICK(r, NOUNS);
		text_printf(t, "%s the %s %s the %s, so the %s looks %s.", c, n1, v, n2, n3, PICK(r, ADJS));
		break;
	}
	case 3: {
		int rate = rng_int(r, 1500, 4000);
		text_printf(t, "Throughput stayed around %d samples/sec, with a global rate of %.1f "
			    "samples/sec.", rate, 1500 + 2500 * rng_real(r));
		break;
	}
	case 4: {
		int a = rng_int(r, 1, 16) * 64, b = rng_int(r, 17, 64) * 64;
		const char *v = PICK(r, VERBS);
		text_printf(t, "Increasing the %s from %d to %d %s the %s by about %d%%.", n1, a, b, v, n2,
			    rng_int(r, 2, 60));
		break;
	}
	case 5: {
		static const char *const keys[] = {"learning_rate", "batch_size", "max_steps",
						   "log_steps", "checkpoint_steps", "weight_decay",
						   "warmup_steps"};
		static const char *const vals[] = {"0.0002", "512", "10000", "100", "1000", "0.01", "2000"};
		const char *key = PICK(r, keys);
		text_printf(t, "We set `%s` to `%s` in the YAML file and reran the job.", key, PICK(r, vals));
		break;
	}
	case 6: {
		static const char *const how[] = {"important", "not obvious", "expected", "worth noting"};
		const char *h = PICK(r, how);
		text_printf(t, "This is **%s** because the %s is *%s* once the %s settles.", h, n1,
			    PICK(r, ADJS), n2);
		break;
	}
	default: {
		static const char *const docs[] = {"Model Zoo", "runtime", "appliance", "PyTorch"};
		static const char *const topics[] = {"training", "checkpoints", "yaml-params",
						     "performance"};
		const char *doc = PICK(r, docs);
		text_printf(t, "See the [%s documentation](https://docs.example.org/%s) for details on "
			    "the %s.", doc, PICK(r, topics), n1);
		break;
	}
	}
}

static void paragraph(struct text *t, struct rng *r, int lo, int hi)
{
	int n = rng_int(r, lo, hi);
	for (int i = 0; i < n; i++) {
		if (i)
			text_put(t, " ");
		sentence(t, r);
	}
	text_put(t, "\n\n");
}

static void table(struct text *t, struct rng *r)
{
	static const char *const names[] = {"base", "warm", "bs", "lr", "wd", "seq"};
	static const char *const lrs[] = {"1e-04", "2e-04", "3e-04", "6e-04", "1e-03"};
	int rows = rng_int(r, 3, 8);
	text_put(t, "| Run | Batch | LR | Steps | Final loss | Rate (samples/s) |\n"
		    "|-----|------:|---:|------:|-----------:|-----------------:|\n");
	for (int i = 0; i < rows; i++) {
		const char *name = PICK(r, names);
		int batch = PICK(r, BATCHES);
		const char *lr = PICK(r, lrs);
		int steps = rng_int(r, 1, 50) * 1000;
		double loss = 2 + 5 * rng_real(r);
		text_printf(t, "| %s-%d | %d | %s | %d | %.4f | %.2f |\n", name, i + 1, batch, lr, steps,
			    loss, 1500 + 2500 * rng_real(r));
	}
	text_put(t, "\n");
}

static void code_block(struct text *t, struct rng *r)
{
	int lang = (int)(rng_real(r) * 3);
	if (lang == 0) {
		static const char *const cfg[] = {"gpt2_small", "bert_base", "gpt3_xl", "llama_7b"};
		const char *c = PICK(r, cfg);
		int a = rng_int(r, 1, 99), b = rng_int(r, 1, 99), d = rng_int(r, 1, 99);
		text_printf(t, "```bash\npython run.py CSX --mode train \\\n"
			    "    --params configs/params_%s.yaml \\\n"
			    "    --model_dir model_dir_%d \\\n"
			    "    --num_csx 1 2>&1 | tee run_%d.log\n"
			    "grep 'Train Device' run_%d.log | tail -n 3\n```\n\n", c, a, b, d);
	} else if (lang == 1) {
		static const char *const data[] = {"owt", "pile", "c4", "wikitext"};
		static const int batch[] = {128, 256, 512, 1024};
		static const char *const lr[] = {"1e-04", "2e-04", "6e-04"};
		static const char *const wd[] = {"0.00", "0.01", "0.10"};
		static const int ckpt[] = {1000, 5000, 10000};
		const char *dd = PICK(r, data);
		int bs = PICK(r, batch);
		const char *l = PICK(r, lr), *w = PICK(r, wd);
		int steps = rng_int(r, 1, 50) * 1000;
		text_printf(t, "```yaml\ntrain_input:\n  data_dir: \"./data/%s/train\"\n"
			    "  batch_size: %d\n  shuffle: true\noptimizer:\n"
			    "  optimizer_type: \"AdamW\"\n  learning_rate: %s\n  weight_decay: %s\n"
			    "runconfig:\n  max_steps: %d\n  log_steps: 100\n  checkpoint_steps: %d\n"
			    "```\n\n", dd, bs, l, w, steps, PICK(r, ckpt));
	} else {
		text_printf(t, "```python\nimport re, csv\n\n"
			    "pat = re.compile(r\"Step=(\\d+), Loss=([\\d.]+), Rate=([\\d.]+)\")\n"
			    "with open(\"run_%d.log\") as f, open(\"results.csv\", \"w\") as out:\n"
			    "    w = csv.writer(out)\n"
			    "    w.writerow([\"step\", \"loss\", \"rate\"])\n"
			    "    for line in f:\n"
			    "        m = pat.search(line)\n"
			    "        if m:\n"
			    "            w.writerow(m.groups())\n```\n\n", rng_int(r, 1, 99));
	}
}

static void bullet_list(struct text *t, struct rng *r, bool ordered)
{
	int n = rng_int(r, 3, 6);
	for (int i = 0; i < n; i++) {
		if (ordered)
			text_printf(t, "%d. ", i + 1);
		else
			text_put(t, "- ");
		static const int seqs[] = {128, 512, 1024, 2048}, logs[] = {10, 50, 100},
				 ckpts[] = {1000, 5000};
		switch ((int)(rng_real(r) * 7)) {
		case 0:
			text_printf(t, "Model: %s", PICK(r, MODELS));
			break;
		case 1:
			text_printf(t, "Dataset: %s", PICK(r, DATASETS));
			break;
		case 2:
			text_printf(t, "Hardware: 1 CS-2 system (CSX), %d input workers", rng_int(r, 1, 8));
			break;
		case 3: {
			int b = PICK(r, BATCHES);
			text_printf(t, "Batch size %d, sequence length %d", b, PICK(r, seqs));
			break;
		}
		case 4: {
			const char *noun = PICK(r, NOUNS);
			text_printf(t, "The %s is %s", noun, PICK(r, ADJS));
			break;
		}
		case 5: {
			int l = PICK(r, logs);
			text_printf(t, "Logged every `%d` steps, checkpoint every `%d`", l, PICK(r, ckpts));
			break;
		}
		default:
			sentence(t, r);
			break;
		}
		text_put(t, "\n");
	}
	text_put(t, "\n");
}

/* Page i of the site: depends only on (seed, i). */
static void page(struct text *t, uint64_t seed, int i)
{
	struct rng r = rng_make(seed * 7919 + 3, (uint64_t)i * 104729);
	const char *m = PICK(&r, MODELS), *d = PICK(&r, DATASETS);
	const char *course = PICK(&r, COURSES), *kind = PICK(&r, KINDS);
	int num = rng_int(&r, 1, 12);
	const char *topic = PICK(&r, TOPICS);
	char title[256];
	const char *ms = strstr(topic, "%s"), *ds = strstr(topic, "%d");
	if (ms && ds) {
		char fmt[128];
		snprintf(fmt, sizeof fmt, "%.*s%%s%.*s%%s%s", (int)(ms - topic), topic,
			 (int)(ds - ms - 2), ms + 2, ds + 2);
		snprintf(title, sizeof title, fmt, m, d);
	} else if (ms || ds) {
		const char *at = ms ? ms : ds;
		snprintf(title, sizeof title, "%.*s%s%s", (int)(at - topic), topic, ms ? m : d, at + 2);
	} else {
		snprintf(title, sizeof title, "%s", topic);
	}
	int day = 1 + (int)(rng_real(&r) * 365), mo = 1;
	static const int mlen[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	while (day > mlen[mo - 1]) {
		day -= mlen[mo - 1];
		mo++;
	}
	int hh = rng_int(&r, 0, 23), mi = rng_int(&r, 0, 59), ss = rng_int(&r, 0, 59);
	text_printf(t, "---\ntitle: \"%s %s %d: %s\"\ndate: 2024-%02d-%02dT%02d:%02d:%02dZ\n---\n\n",
		    course, kind, num, title, mo, day, hh, mi, ss);
	text_put(t, "## Overview\n\n");
	paragraph(t, &r, 3, 7);
	paragraph(t, &r, 2, 5);
	text_put(t, "## Setup\n\n");
	paragraph(t, &r, 2, 4);
	bullet_list(t, &r, false);
	code_block(t, &r);
	text_put(t, "## Results\n\n");
	paragraph(t, &r, 3, 7);
	table(t, &r);
	/* remote: a local image the corpus does not hold is a warning */
	if (rng_real(&r) < 0.5)
		text_printf(t, "![Loss curve for run %d](https://example.org/loss-%d.png)\n\n", i,
			    i);
	int sections = rng_int(&r, 1, 4);
	for (int s = 0; s < sections; s++) {
		text_printf(t, "### %s\n\n", PICK(&r, SECTIONS));
		paragraph(t, &r, 3, 7);
		double x = rng_real(&r);
		if (x < 0.3) {
			code_block(t, &r);
		} else if (x < 0.55) {
			bullet_list(t, &r, true);
		} else if (x < 0.7) {
			table(t, &r);
		} else if (x < 0.8) {
			text_put(t, "> ");
			paragraph(t, &r, 1, 3);
		}
	}
	text_put(t, "## Discussion\n\n");
	paragraph(t, &r, 3, 7);
	paragraph(t, &r, 2, 5);
	t->len--; /* one newline at the end */
	t->total--;
}

static const char HUGO_CONFIG[] =
	"baseURL = \"http://example.org/\"\n"
	"title = \"Benchmark report site\"\n"
	"languageCode = \"en-us\"\n"
	"disableKinds = [\"taxonomy\", \"term\", \"RSS\", \"sitemap\", \"robotsTXT\", \"404\", "
	"\"section\"]\n"
	"\n"
	"[markup.goldmark.renderer]\n"
	"unsafe = false\n"
	"\n"
	"# Off, as the corpus this one follows has it (logdown highlights its\n"
	"# fences: tools/bench.sh times Hugo both ways); use\n"
	"# `hugo --config config.toml,highlight.toml` to measure with Chroma.\n"
	"[markup.highlight]\n"
	"codeFences = false\n";

static const char HUGO_HIGHLIGHT[] =
	"[markup.highlight]\n"
	"codeFences = true\n"
	"noClasses = false\n";

static const char HUGO_SINGLE[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n"
	"<head><meta charset=\"utf-8\"><title>{{ .Title }}</title></head>\n"
	"<body>\n"
	"<main>\n"
	"<h1>{{ .Title }}</h1>\n"
	"<p><time>{{ .Date.Format \"2006-01-02\" }}</time></p>\n"
	"{{ .Content }}\n"
	"</main>\n"
	"</body>\n"
	"</html>\n";

static const char HUGO_LIST[] =
	"<!DOCTYPE html>\n"
	"<html lang=\"en\">\n"
	"<head><meta charset=\"utf-8\"><title>{{ .Site.Title }}</title></head>\n"
	"<body>\n"
	"<h1>{{ .Site.Title }}</h1>\n"
	"<ul>\n"
	"{{ range .Site.RegularPages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>\n"
	"{{ end }}</ul>\n"
	"</body>\n"
	"</html>\n";

static void gen_site(const char *root, int pages, uint64_t seed)
{
	char *dir = join("%s/layouts/_default", root);
	make_dirs(dir);
	free(dir);
	char *content = join("%s/content/reports", root);
	make_dirs(content);
	const char *files[][2] = {
		{"config.toml", HUGO_CONFIG},
		{"highlight.toml", HUGO_HIGHLIGHT},
		{"layouts/_default/single.html", HUGO_SINGLE},
		{"layouts/_default/list.html", HUGO_LIST},
		{"site.yaml", "title: Benchmark report site\n"},
	};
	for (size_t i = 0; i < COUNT(files); i++) {
		char *path = join("%s/%s", root, files[i][0]);
		write_string(path, files[i][1]);
		free(path);
	}
	struct text t = {0};
	uint64_t total = 0;
	for (int i = 1; i <= pages; i++) {
		t.len = t.total = 0;
		page(&t, seed, i);
		char *path = join("%s/report-%05d.md", content, i);
		write_file(path, t.p, t.len);
		free(path);
		total += t.len;
	}
	free(t.p);
	free(content);
	fprintf(stderr, "%s: %d pages, %" PRIu64 " bytes of Markdown\n", root, pages, total);
}

/* ---- the chart project ---- */

static void gen_chart(const char *root, int points, uint64_t seed)
{
	char *dir = join("%s/content/loss", root);
	make_dirs(dir);
	char *path = join("%s/site.yaml", root);
	write_string(path, "title: Chart benchmark\n");
	free(path);
	path = join("%s/index.md", dir);
	char *md = join("---\n"
			"title: Loss over %d steps\n"
			"date: 2024-01-01\n"
			"runs:\n"
			"  pts: points.csv\n"
			"---\n"
			"\n"
			"The loss of one long run, %d points.\n"
			"\n"
			"```{chart}\n"
			"type: line\n"
			"title: Training loss\n"
			"label: fig-loss\n"
			"series: pts\n"
			"x: rows.step\n"
			"y: rows.loss\n"
			"x_label: Step\n"
			"y_label: Loss\n"
			"```\n",
			points, points);
	write_string(path, md);
	free(md);
	free(path);
	path = join("%s/points.csv", dir);
	FILE *f = fopen(path, "wb");
	if (!f)
		die("cannot create", path);
	struct text t = {.f = f, .path = path};
	struct rng r = rng_make(seed, 29);
	struct train tr;
	train_init(&tr, &r, 512, 1);
	text_put(&t, "step,loss\n");
	for (int i = 0; i < points; i++) {
		double rate, grate, dt;
		double loss = train_step(&tr, &rate, &grate, &dt);
		text_printf(&t, "%" PRId64 ",%.5f\n", tr.step, loss);
	}
	text_flush(&t);
	if (fclose(f) != 0)
		die("cannot write", path);
	free(t.p);
	free(path);
	free(dir);
	fprintf(stderr, "%s: one chart of %d points\n", root, points);
}

/* ---- the site of many small reports ---- */

static void gen_reports(const char *root, int n, uint64_t seed)
{
	char *path = join("%s/site.yaml", root);
	make_dirs(root);
	write_string(path, "title: Many small reports\n");
	free(path);
	struct text t = {0};
	for (int i = 1; i <= n; i++) {
		char *dir = join("%s/content/r-%05d", root, i);
		make_dirs(dir);
		struct rng r = rng_make(seed * 31 + 7, (uint64_t)i);
		int batch = PICK(&r, BATCHES);
		int lines = rng_int(&r, 10, 30);
		struct clock c = clock_start(&r);
		struct train tr;
		train_init(&tr, &r, batch, 100);
		t.len = t.total = 0;
		emit(&t, &c, "INFO", 0, "Effective batch size is %d.", batch);
		emit(&t, &c, "INFO", 1, "Beginning appliance run");
		for (int k = 0; k < lines; k++)
			train_line(&t, &c, &tr);
		emit(&t, &c, "INFO", 5, "Training completed successfully!");
		emit(&t, &c, "INFO", 0, "Processed %" PRId64 " sample(s) in %.9f seconds.", tr.samples,
		     tr.run_ms / 1000.0);
		path = join("%s/run.log", dir);
		write_file(path, t.p, t.len);
		free(path);
		t.len = t.total = 0;
		text_printf(&t,
			    "---\n"
			    "title: \"Run %d: batch size %d\"\n"
			    "date: 2024-%02d-%02d\n"
			    "runs:\n"
			    "  run: run.log\n"
			    "---\n"
			    "\n"
			    "## Result\n"
			    "\n"
			    "After {{ run.final_step }} steps at batch size {{ run.batch_size }} the loss "
			    "was {{ run.final_loss }}, at {{ run.throughput :,.1f }} samples/s.\n",
			    i, batch, 1 + (i - 1) / 28 % 12, 1 + (i - 1) % 28);
		path = join("%s/index.md", dir);
		write_file(path, t.p, t.len);
		free(path);
		free(dir);
	}
	free(t.p);
	fprintf(stderr, "%s: %d reports, one log each\n", root, n);
}

/* ---- the command line ---- */

static bool parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {{"Ki", 1u << 10}, {"Mi", 1u << 20}, {"Gi", 1u << 30}, {"k", 1000},
		     {"K", 1000},      {"M", 1000000},   {"G", 1000000000}, {"", 1}};
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return false;
	for (size_t i = 0; i < COUNT(units); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			*out = (uint64_t)(v * (double)units[i].mult);
			return true;
		}
	}
	return false;
}

static bool parse_count(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 1 || v > 100000000)
		return false;
	*out = (int)v;
	return true;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: gencorpus [--seed N] [--log-size SIZE]... [--pages N]... [--points N]...\n"
		"                 [--reports N]... TARGET\n"
		"\n"
		"  --log-size SIZE  TARGET/logs/cerebras-SIZE.log, a Cerebras-style log of about\n"
		"                   SIZE bytes (k/M/G decimal, Ki/Mi/Gi binary)\n"
		"  --pages N        TARGET/site-N: N Markdown reports for logdown and Hugo\n"
		"  --points N       TARGET/chart-N: a project charting an N-point CSV\n"
		"  --reports N      TARGET/reports-N: N reports with a small log each\n"
		"  --seed N         the random seed (default 1); the same seed gives the same bytes\n");
	return 2;
}

int main(int argc, char **argv)
{
	enum { MAXJOBS = 32 };
	struct {
		char kind;
		const char *arg;
	} jobs[MAXJOBS];
	int njobs = 0;
	uint64_t seed = 1;
	const char *target = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage();
			return 0;
		}
		bool takes = strcmp(a, "--seed") == 0 || strcmp(a, "--log-size") == 0 ||
			     strcmp(a, "--pages") == 0 || strcmp(a, "--points") == 0 ||
			     strcmp(a, "--reports") == 0;
		if (takes && i + 1 >= argc) {
			fprintf(stderr, "gencorpus: %s needs a value\n", a);
			return usage();
		}
		if (strcmp(a, "--seed") == 0) {
			char *end;
			errno = 0;
			seed = strtoull(argv[++i], &end, 10);
			if (*end || errno) {
				fprintf(stderr, "gencorpus: --seed takes a whole number\n");
				return 2;
			}
		} else if (takes) {
			if (njobs == MAXJOBS) {
				fprintf(stderr, "gencorpus: at most %d outputs at once\n", MAXJOBS);
				return 2;
			}
			/* l: log, p: pages, c: chart points, r: reports */
			jobs[njobs].kind = strcmp(a, "--points") == 0 ? 'c' : a[2];
			jobs[njobs++].arg = argv[++i];
		} else if (a[0] == '-' || target) {
			fprintf(stderr, "gencorpus: unexpected argument '%s'\n", a);
			return usage();
		} else {
			target = a;
		}
	}
	if (!target || njobs == 0)
		return usage();
	for (int j = 0; j < njobs; j++) {
		uint64_t size;
		int n;
		if (jobs[j].kind == 'l' ? !parse_size(jobs[j].arg, &size) : !parse_count(jobs[j].arg, &n)) {
			fprintf(stderr, "gencorpus: bad %s '%s'\n",
				jobs[j].kind == 'l' ? "size" : "count", jobs[j].arg);
			return 2;
		}
	}
	make_dirs(target);
	for (int j = 0; j < njobs; j++) {
		uint64_t size = 0;
		int n = 0;
		char *path;
		switch (jobs[j].kind) {
		case 'l':
			parse_size(jobs[j].arg, &size);
			path = join("%s/logs", target);
			make_dirs(path);
			free(path);
			path = join("%s/logs/cerebras-%s.log", target, jobs[j].arg);
			gen_log(path, size, seed);
			break;
		case 'p':
			parse_count(jobs[j].arg, &n);
			path = join("%s/site-%d", target, n);
			gen_site(path, n, seed);
			break;
		case 'c':
			parse_count(jobs[j].arg, &n);
			path = join("%s/chart-%d", target, n);
			gen_chart(path, n, seed);
			break;
		default:
			parse_count(jobs[j].arg, &n);
			path = join("%s/reports-%d", target, n);
			gen_reports(path, n, seed);
			break;
		}
		free(path);
	}
	return 0;
}
