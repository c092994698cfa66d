/*
 * C test of VMAF models through the vkssim C API (run by tests/c_api_vmaf.rs,
 * which compares what it prints with the Rust API's results bit for bit).
 *
 *   score_vmaf REF DIST WIDTH HEIGHT FRAMES [vulkan]
 *
 * REF and DIST hold FRAMES packed 8-bit luma planes each. The program
 * creates a CPU scorer (vkssim_scorer_create_cpu) whose description names
 * the model "version=vmaf_v0.6.1" (no features: the model's extractors
 * alone), submits every pair, polling after each; with every pair in, a wait
 * must say VKSSIM_NOT_READY (the last frame waits for the next frame's
 * motion); vkssim_scorer_finish releases it, and waits then give it and
 * VKSSIM_EMPTY. Each result is printed as one line, "frame=N" then every
 * output as name=hex bits; vmaf read through vkssim_score_value must equal
 * its entry in the outputs. With "vulkan", the same again on a Vulkan
 * scorer (vkssim_engine_create, vkssim_scorer_create; validation when
 * VKSSIM_VALIDATION=1, and then no message allowed), each line prefixed
 * "vulkan ". Then a scorer of two models and three features, whose 44
 * values per frame do not fit a VkssimScore: its wait into one is refused
 * before a result is taken, and its results come as frames
 * (vkssim_scorer_poll_frame, vkssim_scorer_wait_frame), printed the same way
 * after "many " (and "vulkan many "), each frame's index its position and
 * its vmaf by name its entry. Then the refusals: a model that does not
 * exist, a NULL model string. Any failure prints a message and exits
 * non-zero.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkssim.h"

#include "c_check.h"

static uint64_t bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

static unsigned char *read_file(const char *path, size_t want) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    FAIL("cannot open %s", path);
  unsigned char *data = malloc(want);
  if (data == NULL || fread(data, 1, want, f) != want)
    FAIL("%s: fewer than %zu bytes", path, want);
  fclose(f);
  return data;
}

/* Prints one result after `prefix`; its vmaf by name must be its entry in
 * the outputs. */
static void print_result(const char *prefix, const VkssimScore *score,
                         unsigned frame) {
  printf("%sframe=%u", prefix, frame);
  for (uint32_t k = 0; k < score->n_outputs; k++)
    printf(" %s=%016" PRIx64, score->outputs[k].name,
           bits(score->outputs[k].value));
  printf("\n");
  double vmaf = 0.0;
  CHECK(vkssim_score_value(score, "vmaf", &vmaf));
  int found = 0;
  for (uint32_t k = 0; k < score->n_outputs; k++)
    if (strcmp(score->outputs[k].name, "vmaf") == 0)
      found = bits(score->outputs[k].value) == bits(vmaf);
  if (!found)
    FAIL("frame %u: vkssim_score_value(vmaf) is not the outputs' vmaf", frame);
}

/* Scores every pair on `scorer`, polling after each submission, then the
 * waits around vkssim_scorer_finish; prints each result after `prefix`. */
static void score_all(VkssimScorer *scorer, const char *prefix,
                      const unsigned char *ref, const unsigned char *dist,
                      uint32_t w, size_t plane, unsigned frames) {
  VkssimScore score;
  unsigned out = 0;
  for (unsigned f = 0; f < frames; f++) {
    VkssimPair pair = vkssim_pair_host(ref + f * plane, w, dist + f * plane, w);
    CHECK(vkssim_scorer_submit(scorer, &pair));
    while (vkssim_scorer_poll(scorer, &score) == VKSSIM_OK)
      print_result(prefix, &score, out++);
  }
  VkssimStatus s;
  while ((s = vkssim_scorer_wait(scorer, &score)) == VKSSIM_OK)
    print_result(prefix, &score, out++);
  if (s != VKSSIM_NOT_READY || out != frames - 1 ||
      vkssim_scorer_in_flight(scorer) != 1)
    FAIL("%sbefore finish: %s after %u results, %zu in flight", prefix,
         vkssim_status_name(s), out, vkssim_scorer_in_flight(scorer));
  CHECK(vkssim_scorer_finish(scorer));
  while ((s = vkssim_scorer_wait(scorer, &score)) == VKSSIM_OK)
    print_result(prefix, &score, out++);
  if (s != VKSSIM_EMPTY || out != frames)
    FAIL("%safter finish: %s after %u results", prefix, vkssim_status_name(s),
         out);
}

/* Prints one frame after `prefix`, as print_result does; its index must be
 * `frame` and its vmaf by name its entry. Destroys it. */
static void print_frame(const char *prefix, VkssimFrame *f, unsigned frame) {
  if (vkssim_frame_index(f) != frame)
    FAIL("%sframe %u has index %" PRIu64, prefix, frame, vkssim_frame_index(f));
  printf("%sframe=%u", prefix, frame);
  size_t n = vkssim_frame_count(f);
  for (size_t k = 0; k < n; k++)
    printf(" %s=%016" PRIx64, vkssim_frame_name(f, k),
           bits(vkssim_frame_value(f, k)));
  printf("\n");
  if (vkssim_frame_name(f, n) != NULL)
    FAIL("%sframe %u: a name past the last value", prefix, frame);
  double vmaf = 0.0;
  CHECK(vkssim_frame_value_by_name(f, "vmaf", &vmaf));
  int found = 0;
  for (size_t k = 0; k < n; k++)
    if (strcmp(vkssim_frame_name(f, k), "vmaf") == 0)
      found = bits(vkssim_frame_value(f, k)) == bits(vmaf);
  if (!found)
    FAIL("%sframe %u: vkssim_frame_value_by_name(vmaf) is not its entry", prefix,
         frame);
  if (vkssim_frame_value_by_name(f, "no_such_value", &vmaf) !=
      VKSSIM_ERROR_INVALID_ARGUMENT)
    FAIL("%sframe %u: an unknown name was not refused", prefix, frame);
  vkssim_frame_destroy(f);
}

/* score_all through the frame calls; first, with one pair in, a wait into a
 * VkssimScore must be refused without taking its result. */
static void score_all_frames(VkssimScorer *scorer, const char *prefix,
                             const unsigned char *ref,
                             const unsigned char *dist, uint32_t w,
                             size_t plane, unsigned frames) {
  VkssimFrame *frame = NULL;
  unsigned out = 0;
  for (unsigned f = 0; f < frames; f++) {
    VkssimPair pair = vkssim_pair_host(ref + f * plane, w, dist + f * plane, w);
    CHECK(vkssim_scorer_submit(scorer, &pair));
    if (f == 0) {
      VkssimScore score;
      if (vkssim_scorer_wait(scorer, &score) != VKSSIM_ERROR_UNSUPPORTED ||
          strstr(vkssim_last_error(), "vkssim_scorer_wait_frame") == NULL ||
          vkssim_scorer_in_flight(scorer) != 1)
        FAIL("%sa wait into a VkssimScore of 44 values was not refused: %s",
             prefix, vkssim_last_error());
    }
    while (vkssim_scorer_poll_frame(scorer, &frame) == VKSSIM_OK)
      print_frame(prefix, frame, out++);
  }
  VkssimStatus s;
  while ((s = vkssim_scorer_wait_frame(scorer, &frame)) == VKSSIM_OK)
    print_frame(prefix, frame, out++);
  if (s != VKSSIM_NOT_READY || frame != NULL || out != frames - 1)
    FAIL("%sframes before finish: %s after %u", prefix, vkssim_status_name(s),
         out);
  CHECK(vkssim_scorer_finish(scorer));
  while ((s = vkssim_scorer_wait_frame(scorer, &frame)) == VKSSIM_OK)
    print_frame(prefix, frame, out++);
  if (s != VKSSIM_EMPTY || out != frames)
    FAIL("%sframes after finish: %s after %u", prefix, vkssim_status_name(s),
         out);
  vkssim_frame_destroy(NULL);
  if (vkssim_frame_count(NULL) != 0 || vkssim_frame_name(NULL, 0) != NULL)
    FAIL("NULL frames are not empty");
}

typedef void (*ScoreAll)(VkssimScorer *, const char *, const unsigned char *,
                         const unsigned char *, uint32_t, size_t, unsigned);

/* Runs `score` on a CPU scorer of `desc` (lines after `prefix`), then with
 * `vulkan` on a Vulkan scorer of its own engine ("vulkan " before `prefix`;
 * validation when VKSSIM_VALIDATION=1, and then no message allowed). */
static void run_both(const VkssimScorerDesc *desc, const char *prefix,
                     ScoreAll score, int vulkan, const unsigned char *ref,
                     const unsigned char *dist, uint32_t w, size_t plane,
                     unsigned frames) {
  VkssimScorer *scorer = NULL;
  CHECK(vkssim_scorer_create_cpu(desc, 2, &scorer));
  score(scorer, prefix, ref, dist, w, plane, frames);
  vkssim_scorer_destroy(scorer);
  if (!vulkan)
    return;
  VkssimEngineOptions opts = vkssim_engine_options_default();
  const char *v = getenv("VKSSIM_VALIDATION");
  opts.validation = v != NULL && strcmp(v, "1") == 0;
  VkssimEngine *engine = NULL;
  CHECK(vkssim_engine_create(&opts, &engine));
  CHECK(vkssim_scorer_create(engine, desc, &scorer));
  char label[64];
  snprintf(label, sizeof label, "vulkan %s", prefix);
  score(scorer, label, ref, dist, w, plane, frames);
  size_t messages = vkssim_engine_validation_message_count(engine);
  vkssim_scorer_destroy(scorer);
  vkssim_engine_destroy(engine);
  if (messages)
    FAIL("%s%zu validation messages", label, messages);
}

int main(int argc, char **argv) {
  if (argc != 6 && !(argc == 7 && strcmp(argv[6], "vulkan") == 0))
    FAIL("usage: score_vmaf REF DIST WIDTH HEIGHT FRAMES [vulkan]");
  uint32_t w = (uint32_t)atoi(argv[3]), h = (uint32_t)atoi(argv[4]);
  unsigned frames = (unsigned)atoi(argv[5]);
  size_t plane = (size_t)w * h;
  unsigned char *ref = read_file(argv[1], plane * frames);
  unsigned char *dist = read_file(argv[2], plane * frames);

  const char *models[1] = {"version=vmaf_v0.6.1"};
  VkssimScorerDesc desc = {0};
  desc.width = w;
  desc.height = h;
  desc.bit_depth = 8;
  desc.models = models;
  desc.n_models = 1;
  int vulkan = argc == 7;
  run_both(&desc, "", score_all, vulkan, ref, dist, w, plane, frames);

  /* Two models and three features: 44 values a frame. */
  const char *many_models[2] = {"version=vmaf_v0.6.1",
                                "version=vmaf_v0.6.1neg:name=neg"};
  const char *many_features[3] = {"float_ms_ssim=enable_lcs=true",
                                  "float_ssim=enable_lcs=true",
                                  "psnr=enable_mse=true:enable_chroma=false"};
  VkssimScorerDesc many = desc;
  many.models = many_models;
  many.n_models = 2;
  many.features = many_features;
  many.n_features = 3;
  run_both(&many, "many ", score_all_frames, vulkan, ref, dist, w, plane,
           frames);

  /* The default model with libvmaf 3.2.0's motion. */
  VkssimScorerDesc v32 = desc;
  v32.motion_version = "3.2.0";
  run_both(&v32, "v32 ", score_all, vulkan, ref, dist, w, plane, frames);

  /* Refusals. */
  const char *unknown[1] = {"version=vmaf_v9"};
  desc.models = unknown;
  VkssimScorer *bad = NULL;
  if (vkssim_scorer_create_cpu(&desc, 1, &bad) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      bad != NULL || strstr(vkssim_last_error(), "vmaf_v9") == NULL)
    FAIL("an unknown model was not refused by name: %s", vkssim_last_error());
  const char *null_model[1] = {NULL};
  desc.models = null_model;
  if (vkssim_scorer_create_cpu(&desc, 1, &bad) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      bad != NULL || strstr(vkssim_last_error(), "models[0]") == NULL)
    FAIL("a NULL model string was not refused: %s", vkssim_last_error());
  v32.motion_version = "3.1";
  if (vkssim_scorer_create_cpu(&v32, 1, &bad) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      bad != NULL || strstr(vkssim_last_error(), "3.1") == NULL)
    FAIL("an unknown motion version was not refused by name: %s",
         vkssim_last_error());
  if (vkssim_scorer_finish(NULL) != VKSSIM_ERROR_INVALID_ARGUMENT)
    FAIL("finish on NULL was not refused");
  free(ref);
  free(dist);
  return 0;
}
