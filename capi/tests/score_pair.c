/*
 * C test of the vkssim C API (run by tests/c_api.rs, which compares what it
 * prints with the Rust API's results bit for bit).
 *
 *   score_pair REF DIST WIDTH HEIGHT
 *
 * REF and DIST are packed 8-bit luma planes. The program
 *   1. creates an engine on vkssim's own device (validation when
 *      VKSSIM_VALIDATION=1), a scorer with enable_lcs and enable_db, submits
 *      the pair twice (packed, then from rows padded to a larger stride),
 *      polls then waits, and prints each score's bits; then an encoding
 *      ladder of two scorers: the reference uploaded once into a shared plane
 *      (vkssim_shared_planes_upload, from the padded rows), each scorer
 *      scoring it against the distorted plane (packed, padded), the plane's
 *      and the pool's handles released before the results are taken; the
 *      same pair through vkssim_scorer_submit (VkssimPair), on the CPU twin
 *      (vkssim_scorer_create_cpu) and through a multi-scorer of one engine;
 *   1b. creates buffers on that engine's own device through its handles,
 *      imports them once (vkssim_engine_import_plane), scores them twice
 *      through vkssim_scorer_submit with semaphores submitted through
 *      vkssim_engine_queue_submit, prints the bits; the imports' release
 *      callbacks must run once each, after the handles are destroyed and the
 *      pairs are done, and only then are the buffers destroyed;
 *   1c. the same with the planes in R8_UNORM VkImages (filled by a copy the
 *      program submits through the engine, left in GENERAL), scored through
 *      vkssim_scorer_submit_sources (versioned VkssimDeviceSource structs),
 *      which leaves them in TRANSFER_SRC_OPTIMAL; a struct_size that is too
 *      small must be refused;
 *   2. creates its own Vulkan instance and device, imports them (the
 *      refused import through vkssim_engine_import's flags, the good one
 *      through vkssim_engine_import2 with the VkPhysicalDeviceFeatures2 chain
 *      and the instance extension list), copies the
 *      pair into VkBuffers of that device and scores them through
 *      vkssim_scorer_submit_buffers (waiting on and signalling a semaphore),
 *      prints the score's bits, destroys the engine and checks the device
 *      still works; an import without shaderInt64 must be refused;
 *   3. checks the error paths: a plane too small, NULL arguments, an empty
 *      queue.
 * Any failure prints a message and exits non-zero.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "vkssim.h"

/* The submit shorthands are deprecated (vkssim_scorer_submit replaces
 * them); this program still tests them, so their deprecation warning is
 * silenced around those calls only. */
#define ALLOW_DEPRECATED_BEGIN                                                 \
  _Pragma("GCC diagnostic push")                                               \
      _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define ALLOW_DEPRECATED_END _Pragma("GCC diagnostic pop")

#include "c_check.h"

#define VK(call)                                                               \
  do {                                                                         \
    VkResult r_ = (call);                                                      \
    if (r_ != VK_SUCCESS)                                                      \
      FAIL("%s: VkResult %d", #call, (int)r_);                                 \
  } while (0)

static uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static void print_score(const char *label, const VkssimScore *s) {
  printf("%s ssim=%016" PRIx64 " l=%016" PRIx64 " c=%016" PRIx64
         " s=%016" PRIx64 " db=%016" PRIx64 " has_db=%d\n",
         label, bits(s->ssim), bits(s->l), bits(s->c), bits(s->s),
         bits(s->db), (int)s->has_db);
}

static uint8_t *read_file(const char *path, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    FAIL("cannot open %s", path);
  uint8_t *buf = malloc(size);
  if (!buf || fread(buf, 1, size, f) != size)
    FAIL("cannot read %zu bytes from %s", size, path);
  fclose(f);
  return buf;
}

static int validation_on(void) {
  const char *v = getenv("VKSSIM_VALIDATION");
  return v && strcmp(v, "1") == 0;
}

/* 1. Own device, host frames. */
static void own_device(const uint8_t *ref, const uint8_t *dist, uint32_t w,
                       uint32_t h) {
  VkssimEngineOptions opts = vkssim_engine_options_default();
  opts.validation = validation_on();
  VkssimEngine *engine = NULL;
  CHECK(vkssim_engine_create(&opts, &engine));
  char name[256];
  CHECK(vkssim_engine_device_name(engine, name, sizeof name));
  fprintf(stderr, "own device: %s\n", name);

  VkssimScorerDesc desc = {0};
  desc.width = w;
  desc.height = h;
  desc.bit_depth = 8;
  desc.enable_lcs = true;
  desc.enable_db = true;
  VkssimScorer *scorer = NULL;
  CHECK(vkssim_scorer_create(engine, &desc, &scorer));

  VkssimScore score;
  if (vkssim_scorer_poll(scorer, &score) != VKSSIM_EMPTY)
    FAIL("poll on an empty scorer did not say VKSSIM_EMPTY");

  ALLOW_DEPRECATED_BEGIN
  CHECK(vkssim_scorer_submit_host(scorer, ref, w, dist, w));
  ALLOW_DEPRECATED_END
  size_t stride = w + 37;
  uint8_t *pref = calloc(stride * h, 1), *pdist = calloc(stride * h, 1);
  for (uint32_t y = 0; y < h; y++) {
    memcpy(pref + y * stride, ref + (size_t)y * w, w);
    memcpy(pdist + y * stride, dist + (size_t)y * w, w);
  }
  ALLOW_DEPRECATED_BEGIN
  CHECK(vkssim_scorer_submit_host(scorer, pref, stride, pdist, stride));
  ALLOW_DEPRECATED_END
  if (vkssim_scorer_in_flight(scorer) != 2)
    FAIL("in_flight is %zu, not 2", vkssim_scorer_in_flight(scorer));

  /* The first result by polling, the second by waiting. */
  VkssimStatus st;
  while ((st = vkssim_scorer_poll(scorer, &score)) == VKSSIM_NOT_READY)
    ;
  CHECK(st);
  print_score("host_packed", &score);
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("host_strided", &score);
  if (vkssim_scorer_wait(scorer, &score) != VKSSIM_EMPTY)
    FAIL("wait on a drained scorer did not say VKSSIM_EMPTY");

  /* An encoding ladder of two scorers sharing one uploaded reference. */
  VkssimScorer *second = NULL;
  CHECK(vkssim_scorer_create(engine, &desc, &second));
  VkssimSharedPlanes *planes = NULL;
  CHECK(vkssim_shared_planes_create(engine, w, h, 8, &planes));
  VkssimSharedPlane *shared = NULL;
  CHECK(vkssim_shared_planes_upload(planes, pref, stride, &shared));
  ALLOW_DEPRECATED_BEGIN
  CHECK(vkssim_scorer_submit_host_shared(scorer, shared, dist, w));
  CHECK(vkssim_scorer_submit_host_shared(second, shared, pdist, stride));
  ALLOW_DEPRECATED_END
  /* The scorers keep the plane until their pairs are done. */
  vkssim_shared_plane_release(shared);
  vkssim_shared_planes_destroy(planes);
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("shared_ladder_packed", &score);
  CHECK(vkssim_scorer_wait(second, &score));
  print_score("shared_ladder_strided", &score);
  ALLOW_DEPRECATED_BEGIN
  if (vkssim_scorer_submit_host_shared(second, NULL, dist, w) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      strlen(vkssim_last_error()) == 0)
    FAIL("a NULL shared plane was not refused with a message");
  ALLOW_DEPRECATED_END
  vkssim_scorer_destroy(second);

  /* One submit for every source, on a Vulkan scorer, the CPU twin and a
   * multi-scorer; a pair of the wrong version and mixed sources refused. */
  VkssimPair pair = vkssim_pair_host(ref, w, dist, w);
  CHECK(vkssim_scorer_submit(scorer, &pair));
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("pair_host", &score);
  VkssimScorer *cpu = NULL;
  CHECK(vkssim_scorer_create_cpu(&desc, 2, &cpu));
  VkssimPair strided = vkssim_pair_host(pref, stride, pdist, stride);
  CHECK(vkssim_scorer_submit(cpu, &strided));
  CHECK(vkssim_scorer_wait(cpu, &score));
  print_score("cpu_twin", &score);
  vkssim_scorer_destroy(cpu);
  VkssimMultiScorer *multi = NULL;
  const VkssimEngine *engines[1] = {engine};
  CHECK(vkssim_multi_scorer_create(engines, 1, &desc, &multi));
  CHECK(vkssim_multi_scorer_submit(multi, &pair));
  CHECK(vkssim_multi_scorer_wait(multi, &score));
  print_score("multi_scorer", &score);
  if (vkssim_multi_scorer_wait(multi, &score) != VKSSIM_EMPTY)
    FAIL("wait on a drained multi-scorer did not say VKSSIM_EMPTY");
  vkssim_multi_scorer_destroy(multi);
  VkssimPair old = pair;
  old.struct_size = sizeof(size_t);
  if (vkssim_scorer_submit(scorer, &old) != VKSSIM_ERROR_INVALID_ARGUMENT ||
      strstr(vkssim_last_error(), "struct_size") == NULL)
    FAIL("a VkssimPair with a small struct_size was not refused: %s",
         vkssim_last_error());

  /* Error paths. */
  ALLOW_DEPRECATED_BEGIN
  if (vkssim_scorer_submit_host(scorer, NULL, w, dist, w) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      strlen(vkssim_last_error()) == 0)
    FAIL("a NULL plane was not refused with a message");
  if (vkssim_scorer_submit_host(scorer, ref, w - 1, dist, w) !=
      VKSSIM_ERROR_INVALID_ARGUMENT)
    FAIL("a stride shorter than a row was not refused");
  ALLOW_DEPRECATED_END
  VkssimScorerDesc tiny = desc;
  tiny.width = 8;
  tiny.height = 8;
  VkssimScorer *bad = NULL;
  if (vkssim_scorer_create(engine, &tiny, &bad) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      bad != NULL || strstr(vkssim_last_error(), "11x11") == NULL)
    FAIL("an 8x8 scorer was not refused with a message about 11x11: %s",
         vkssim_last_error());
  fprintf(stderr, "8x8 refused: %s\n", vkssim_last_error());

  size_t messages = vkssim_engine_validation_message_count(engine);
  vkssim_scorer_destroy(scorer);
  vkssim_engine_destroy(engine);
  free(pref);
  free(pdist);
  if (messages)
    FAIL("%zu validation messages", messages);
}

/* The host's queue lock (the test is single-threaded: it only counts). */
static int lock_count, unlock_count;
static void lock_queue(void *user, uint32_t family, uint32_t index) {
  (void)user, (void)family, (void)index;
  lock_count++;
}
static void unlock_queue(void *user, uint32_t family, uint32_t index) {
  (void)user, (void)family, (void)index;
  unlock_count++;
}

static VkBool32 VKAPI_PTR on_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  (void)types;
  (void)severity;
  fprintf(stderr, "validation: %s\n", data->pMessage);
  (*(int *)user)++;
  return VK_FALSE;
}

struct host {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice pd;
  uint32_t family;
  int messages;
};

/* A device with shaderInt64 as `int64` says, its features given as the
 * VkPhysicalDeviceFeatures2 `chain` (written here; vkssim_engine_import2 reads
 * the same chain). */
static VkDevice make_device(struct host *host, VkBool32 int64,
                            VkPhysicalDeviceFeatures2 *chain) {
  float prio = 1.0f;
  VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  q.queueFamilyIndex = host->family;
  q.queueCount = 1;
  q.pQueuePriorities = &prio;
  memset(chain, 0, sizeof *chain);
  chain->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  chain->features.shaderInt64 = int64;
  VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = chain;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &q;
  VkDevice device;
  VK(vkCreateDevice(host->pd, &info, NULL, &device));
  return device;
}

static VkssimImportDesc import_desc(struct host *host, VkDevice device,
                                    bool int64) {
  VkssimImportDesc d;
  memset(&d, 0, sizeof d);
  d.get_instance_proc_addr = (VkssimGetInstanceProcAddr)vkGetInstanceProcAddr;
  d.instance = host->instance;
  d.physical_device = host->pd;
  d.device = device;
  d.queue_family = host->family;
  d.queue_index = 0;
  d.shader_int64 = int64;
  d.lock_queue = lock_queue;
  d.unlock_queue = unlock_queue;
  return d;
}

static uint32_t memory_type(VkPhysicalDevice pd, uint32_t bits,
                            VkMemoryPropertyFlags want) {
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (uint32_t i = 0; i < mem.memoryTypeCount; i++)
    if ((bits & (1u << i)) &&
        (mem.memoryTypes[i].propertyFlags & want) == want)
      return i;
  FAIL("no memory type with flags %#x", (unsigned)want);
}

/* A host-visible buffer holding `n` bytes of `data` at `offset`. */
static void plane_buffer(VkPhysicalDevice pd, VkDevice device,
                         const uint8_t *data, size_t n, VkDeviceSize offset,
                         VkBuffer *buf, VkDeviceMemory *mem) {
  VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = offset + n;
  bi.usage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  VK(vkCreateBuffer(device, &bi, NULL, buf));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, *buf, &req);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = memory_type(pd, req.memoryTypeBits,
                                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VK(vkAllocateMemory(device, &ai, NULL, mem));
  VK(vkBindBufferMemory(device, *buf, *mem, 0));
  void *p;
  VK(vkMapMemory(device, *mem, 0, VK_WHOLE_SIZE, 0, &p));
  memcpy((uint8_t *)p + offset, data, n);
  vkUnmapMemory(device, *mem);
}

/* Counts an import's release (the callback of vkssim_import_on_release). */
static void count_release(void *user) { ++*(int *)user; }

/* A scorer for device frames of w x h, 8-bit, with enable_lcs and enable_db. */
static VkssimScorer *device_scorer(VkssimEngine *engine, uint32_t w,
                                   uint32_t h) {
  VkssimScorerDesc desc = {0};
  desc.width = w;
  desc.height = h;
  desc.bit_depth = 8;
  desc.enable_lcs = true;
  desc.enable_db = true;
  VkssimScorer *scorer = NULL;
  CHECK(vkssim_scorer_create(engine, &desc, &scorer));
  return scorer;
}

/* Waits on vkssim's binary signal `scored` through the engine's queue, with a
 * fence the host waits for. */
static void consume_signal(VkssimEngine *engine, VkDevice device,
                           VkSemaphore scored) {
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  VK(vkCreateFence(device, &fi, NULL, &fence));
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo last = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  last.waitSemaphoreCount = 1;
  last.pWaitSemaphores = &scored;
  last.pWaitDstStageMask = &stage;
  CHECK(vkssim_engine_queue_submit(engine, 1, &last, (uint64_t)fence));
  VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
  vkDestroyFence(device, fence, NULL);
}

/* 1b. Own device, frames in VkBuffers created on it through the engine's
 * handles, chained with binary semaphores submitted through the engine. */
static void own_device_buffers(const uint8_t *ref, const uint8_t *dist,
                               uint32_t w, uint32_t h) {
  VkssimEngineOptions opts = vkssim_engine_options_default();
  opts.validation = validation_on();
  VkssimEngine *engine = NULL;
  CHECK(vkssim_engine_create(&opts, &engine));
  VkssimDeviceHandles hd;
  CHECK(vkssim_engine_device_handles(engine, &hd));
  VkDevice device = (VkDevice)hd.device;
  VkPhysicalDevice pd = (VkPhysicalDevice)hd.physical_device;
  VkBuffer bufs[2];
  VkDeviceMemory mems[2];
  plane_buffer(pd, device, ref, (size_t)w * h, 0, &bufs[0], &mems[0]);
  plane_buffer(pd, device, dist, (size_t)w * h, 0, &bufs[1], &mems[1]);
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore decoded, scored;
  VK(vkCreateSemaphore(device, &si, NULL, &decoded));
  VK(vkCreateSemaphore(device, &si, NULL, &scored));
  VkSubmitInfo sub = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  sub.signalSemaphoreCount = 1;
  sub.pSignalSemaphores = &decoded;
  CHECK(vkssim_engine_queue_submit(engine, 1, &sub, 0));

  VkssimScorer *scorer = device_scorer(engine, w, h);
  VkssimDeviceSource sr = vkssim_device_source_buffer((uint64_t)bufs[0], 0, w);
  VkssimDeviceSource sd = vkssim_device_source_buffer((uint64_t)bufs[1], 0, w);
  VkssimImport *imports[2] = {NULL, NULL};
  CHECK(vkssim_engine_import_plane(engine, &sr, 8, &imports[0]));
  CHECK(vkssim_engine_import_plane(engine, &sd, 8, &imports[1]));
  int released = 0;
  for (int k = 0; k < 2; k++)
    CHECK(vkssim_import_on_release(imports[k], count_release, &released));
  VkssimSemaphore wait = {(uint64_t)decoded, false, 0};
  VkssimSemaphore signal = {(uint64_t)scored, false, 0};
  VkssimPair pair = vkssim_pair_imported(imports[0], imports[1]);
  pair.waits = &wait;
  pair.n_waits = 1;
  pair.signals = &signal;
  pair.n_signals = 1;
  CHECK(vkssim_scorer_submit(scorer, &pair));
  if (!vkssim_import_in_use(imports[0]))
    FAIL("an import read by a pair in flight is not in use");
  VkssimScore score;
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("own_device_buffers", &score);
  consume_signal(engine, device, scored);
  /* The same imports again, without semaphores; the handles destroyed while
   * the pair is in flight: the release waits for the pair. */
  VkssimPair again = vkssim_pair_imported(imports[0], imports[1]);
  CHECK(vkssim_scorer_submit(scorer, &again));
  vkssim_import_destroy(imports[0]);
  vkssim_import_destroy(imports[1]);
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("imported_again", &score);
  if (released != 2)
    FAIL("%d release callbacks ran after the pairs were done, not 2", released);

  /* Tidy up. */
  vkssim_scorer_destroy(scorer);
  vkDestroySemaphore(device, decoded, NULL);
  vkDestroySemaphore(device, scored, NULL);
  for (int k = 0; k < 2; k++) {
    vkDestroyBuffer(device, bufs[k], NULL);
    vkFreeMemory(device, mems[k], NULL);
  }
  size_t messages = vkssim_engine_validation_message_count(engine);
  vkssim_engine_destroy(engine);
  if (messages)
    FAIL("%zu validation messages", messages);
}

/* An R8_UNORM image of w x h with TRANSFER_SRC and TRANSFER_DST usage. */
static void plane_image(VkPhysicalDevice pd, VkDevice device, uint32_t w,
                        uint32_t h, VkImage *image, VkDeviceMemory *mem) {
  VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ci.imageType = VK_IMAGE_TYPE_2D;
  ci.format = VK_FORMAT_R8_UNORM;
  ci.extent.width = w;
  ci.extent.height = h;
  ci.extent.depth = 1;
  ci.mipLevels = 1;
  ci.arrayLayers = 1;
  ci.samples = VK_SAMPLE_COUNT_1_BIT;
  ci.tiling = VK_IMAGE_TILING_OPTIMAL;
  ci.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK(vkCreateImage(device, &ci, NULL, image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device, *image, &req);
  VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = memory_type(pd, req.memoryTypeBits, 0);
  VK(vkAllocateMemory(device, &ai, NULL, mem));
  VK(vkBindImageMemory(device, *image, *mem, 0));
}

static void image_barrier(VkCommandBuffer cmd, VkImage image,
                          VkImageLayout from, VkImageLayout to,
                          VkAccessFlags src, VkAccessFlags dst) {
  VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
  b.subresourceRange.levelCount = 1;
  b.subresourceRange.layerCount = 1;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL,
                       1, &b);
}

/* 1c. Own device, frames in R8_UNORM VkImages. */
static void own_device_images(const uint8_t *ref, const uint8_t *dist,
                              uint32_t w, uint32_t h) {
  VkssimEngineOptions opts = vkssim_engine_options_default();
  opts.validation = validation_on();
  VkssimEngine *engine = NULL;
  CHECK(vkssim_engine_create(&opts, &engine));
  VkssimDeviceHandles hd;
  CHECK(vkssim_engine_device_handles(engine, &hd));
  VkDevice device = (VkDevice)hd.device;
  VkPhysicalDevice pd = (VkPhysicalDevice)hd.physical_device;
  const uint8_t *planes[2] = {ref, dist};
  VkBuffer bufs[2];
  VkDeviceMemory mems[2], image_mems[2];
  VkImage images[2];
  VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = hd.queue_family;
  VkCommandPool pool;
  VK(vkCreateCommandPool(device, &pi, NULL, &pool));
  VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  VK(vkAllocateCommandBuffers(device, &cai, &cmd));
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK(vkBeginCommandBuffer(cmd, &bi));
  for (int k = 0; k < 2; k++) {
    plane_buffer(pd, device, planes[k], (size_t)w * h, 0, &bufs[k], &mems[k]);
    plane_image(pd, device, w, h, &images[k], &image_mems[k]);
    image_barrier(cmd, images[k], VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                  VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region = {0};
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    region.imageSubresource.layerCount = 1;
    region.imageExtent.width = w;
    region.imageExtent.height = h;
    region.imageExtent.depth = 1;
    vkCmdCopyBufferToImage(cmd, bufs[k], images[k],
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    image_barrier(cmd, images[k], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  }
  VK(vkEndCommandBuffer(cmd));
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore decoded, scored;
  VK(vkCreateSemaphore(device, &si, NULL, &decoded));
  VK(vkCreateSemaphore(device, &si, NULL, &scored));
  VkSubmitInfo sub = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  sub.commandBufferCount = 1;
  sub.pCommandBuffers = &cmd;
  sub.signalSemaphoreCount = 1;
  sub.pSignalSemaphores = &decoded;
  CHECK(vkssim_engine_queue_submit(engine, 1, &sub, 0));

  VkssimScorer *scorer = device_scorer(engine, w, h);
  VkssimDeviceSource sr = vkssim_device_source_image(
      (uint64_t)images[0], VK_FORMAT_R8_UNORM, VK_IMAGE_LAYOUT_GENERAL);
  VkssimDeviceSource sd = sr;
  sd.image = (uint64_t)images[1];
  sr.final_layout = sd.final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  if (sr.struct_size != sizeof(VkssimDeviceSource) ||
      sr.queue_family != VKSSIM_QUEUE_FAMILY_IGNORED)
    FAIL("vkssim_device_source_image: struct_size %zu, queue_family %u",
         sr.struct_size, sr.queue_family);
  VkssimDeviceSource old = sr;
  old.struct_size = 8;
  ALLOW_DEPRECATED_BEGIN
  if (vkssim_scorer_submit_sources(scorer, &old, &sd, NULL, 0, NULL, 0) !=
          VKSSIM_ERROR_INVALID_ARGUMENT ||
      strstr(vkssim_last_error(), "struct_size") == NULL)
    FAIL("a short struct_size was not refused: %s", vkssim_last_error());
  ALLOW_DEPRECATED_END
  VkssimSemaphore wait = {(uint64_t)decoded, false, 0};
  VkssimSemaphore signal = {(uint64_t)scored, false, 0};
  ALLOW_DEPRECATED_BEGIN
  CHECK(vkssim_scorer_submit_sources(scorer, &sr, &sd, &wait, 1, &signal, 1));
  ALLOW_DEPRECATED_END
  VkssimScore score;
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("device_images", &score);

  consume_signal(engine, device, scored);
  vkssim_scorer_destroy(scorer);
  vkDestroySemaphore(device, decoded, NULL);
  vkDestroySemaphore(device, scored, NULL);
  vkDestroyCommandPool(device, pool, NULL);
  for (int k = 0; k < 2; k++) {
    vkDestroyImage(device, images[k], NULL);
    vkFreeMemory(device, image_mems[k], NULL);
    vkDestroyBuffer(device, bufs[k], NULL);
    vkFreeMemory(device, mems[k], NULL);
  }
  size_t messages = vkssim_engine_validation_message_count(engine);
  vkssim_engine_destroy(engine);
  if (messages)
    FAIL("%zu validation messages", messages);
}

/* 2. Imported device, frames in VkBuffers. */
static void imported_device(const uint8_t *ref, const uint8_t *dist,
                            uint32_t w, uint32_t h) {
  struct host host = {0};
  int validation = validation_on();
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
  const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  if (validation) {
    ii.enabledLayerCount = 1;
    ii.ppEnabledLayerNames = layers;
    ii.enabledExtensionCount = 1;
    ii.ppEnabledExtensionNames = exts;
  }
  VK(vkCreateInstance(&ii, NULL, &host.instance));
  PFN_vkCreateDebugUtilsMessengerEXT create_messenger = NULL;
  if (validation) {
    create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
        host.instance, "vkCreateDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = on_message;
    mi.pUserData = &host.messages;
    VK(create_messenger(host.instance, &mi, NULL, &host.messenger));
  }
  uint32_t n = 8;
  VkPhysicalDevice pds[8];
  VkResult r = vkEnumeratePhysicalDevices(host.instance, &n, pds);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    FAIL("vkEnumeratePhysicalDevices: %d", (int)r);
  host.pd = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < n && !host.pd; i++) {
    VkPhysicalDeviceFeatures f;
    vkGetPhysicalDeviceFeatures(pds[i], &f);
    uint32_t nf = 16;
    VkQueueFamilyProperties fams[16];
    vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nf, fams);
    for (uint32_t k = 0; k < nf && f.shaderInt64; k++)
      if (fams[k].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        host.pd = pds[i];
        host.family = k;
        break;
      }
  }
  if (!host.pd)
    FAIL("no device with shaderInt64 and a compute queue");

  /* Without shaderInt64: refused, naming it. */
  VkPhysicalDeviceFeatures2 chain;
  VkDevice no_int64 = make_device(&host, VK_FALSE, &chain);
  VkssimImportDesc bad = import_desc(&host, no_int64, false);
  VkssimEngine *engine = NULL;
  if (vkssim_engine_import(&bad, &engine) != VKSSIM_ERROR_MISSING_FEATURE ||
      strstr(vkssim_last_error(), "shaderInt64") == NULL)
    FAIL("an import without shaderInt64 was not refused naming it: %s",
         vkssim_last_error());
  fprintf(stderr, "import without shaderInt64 refused: %s\n",
          vkssim_last_error());
  vkDestroyDevice(no_int64, NULL);

  /* The import that reads the features chain and the extension lists. */
  VkDevice device = make_device(&host, VK_TRUE, &chain);
  VkQueue queue;
  vkGetDeviceQueue(device, host.family, 0, &queue);
  VkssimImportDesc2 good;
  memset(&good, 0, sizeof good);
  good.struct_size = sizeof good;
  good.base = import_desc(&host, device, false); /* flags ignored by import2 */
  good.features2 = &chain;
  good.instance_extensions = exts;
  good.instance_extension_count = validation ? 1 : 0;
  good.struct_size = 16;
  if (vkssim_engine_import2(&good, &engine) != VKSSIM_ERROR_INVALID_ARGUMENT)
    FAIL("vkssim_engine_import2 took a short struct_size");
  good.struct_size = sizeof good;
  CHECK(vkssim_engine_import2(&good, &engine));

  /* Two host-visible buffers holding the planes at an offset of 256 bytes. */
  VkDeviceSize offset = 256;
  VkBuffer bufs[2];
  VkDeviceMemory mems[2];
  const uint8_t *planes[2] = {ref, dist};
  for (int k = 0; k < 2; k++)
    plane_buffer(host.pd, device, planes[k], (size_t)w * h, offset, &bufs[k],
                 &mems[k]);
  /* A binary semaphore the host signals (an empty submission stands in for
   * its decoder) and one vkssim signals. */
  VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore decoded, scored;
  VK(vkCreateSemaphore(device, &si, NULL, &decoded));
  VK(vkCreateSemaphore(device, &si, NULL, &scored));
  VkSubmitInfo sub = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  sub.signalSemaphoreCount = 1;
  sub.pSignalSemaphores = &decoded;
  VK(vkQueueSubmit(queue, 1, &sub, VK_NULL_HANDLE));

  VkssimScorer *scorer = device_scorer(engine, w, h);
  VkssimDevicePlane pr = {(uint64_t)bufs[0], offset, w};
  VkssimDevicePlane pdst = {(uint64_t)bufs[1], offset, w};
  VkssimSemaphore wait = {(uint64_t)decoded, false, 0};
  VkssimSemaphore signal = {(uint64_t)scored, false, 0};
  ALLOW_DEPRECATED_BEGIN
  CHECK(vkssim_scorer_submit_buffers(scorer, &pr, &pdst, &wait, 1, &signal, 1));
  ALLOW_DEPRECATED_END
  VkssimScore score;
  CHECK(vkssim_scorer_wait(scorer, &score));
  print_score("device_buffers", &score);
  vkssim_scorer_destroy(scorer);
  vkssim_engine_destroy(engine);
  if (lock_count == 0 || lock_count != unlock_count)
    FAIL("queue lock taken %d times, released %d times", lock_count,
         unlock_count);

  /* The device still works: consume vkssim's signal with a fence. */
  VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  VK(vkCreateFence(device, &fi, NULL, &fence));
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo last = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  last.waitSemaphoreCount = 1;
  last.pWaitSemaphores = &scored;
  last.pWaitDstStageMask = &stage;
  VK(vkQueueSubmit(queue, 1, &last, fence));
  VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
  VK(vkDeviceWaitIdle(device));
  fprintf(stderr, "imported device still works after the engine was destroyed\n");

  vkDestroyFence(device, fence, NULL);
  vkDestroySemaphore(device, decoded, NULL);
  vkDestroySemaphore(device, scored, NULL);
  for (int k = 0; k < 2; k++) {
    vkDestroyBuffer(device, bufs[k], NULL);
    vkFreeMemory(device, mems[k], NULL);
  }
  vkDestroyDevice(device, NULL);
  if (validation) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            host.instance, "vkDestroyDebugUtilsMessengerEXT");
    destroy_messenger(host.instance, host.messenger, NULL);
  }
  vkDestroyInstance(host.instance, NULL);
  if (host.messages)
    FAIL("%d validation messages on the imported device", host.messages);
}

int main(int argc, char **argv) {
  if (argc != 5)
    FAIL("usage: score_pair REF DIST WIDTH HEIGHT");
  uint32_t w = (uint32_t)atoi(argv[3]), h = (uint32_t)atoi(argv[4]);
  uint8_t *ref = read_file(argv[1], (size_t)w * h);
  uint8_t *dist = read_file(argv[2], (size_t)w * h);
  own_device(ref, dist, w, h);
  own_device_buffers(ref, dist, w, h);
  own_device_images(ref, dist, w, h);
  imported_device(ref, dist, w, h);
  free(ref);
  free(dist);
  return 0;
}
