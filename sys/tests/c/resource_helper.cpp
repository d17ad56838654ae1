/*
 * A resource helper class as the vendor's C++ helper libraries have one,
 * driven the way their samples drive it: init with an empty config path,
 * set the device (and, from a second component, set it again), create a
 * context and a stream, allocate pinned host and device memory, convert
 * float inputs to aclFloat16, copy there and back, serve callbacks on a
 * report thread (aclrtSubscribeReport + an aclrtProcessReport loop +
 * aclrtLaunchCallback), allocate two 4 GiB device buffers, log through
 * ACL_APP_LOG, then tear down.
 *
 *   resource_helper tidy    every resource released in order
 *   resource_helper sloppy  the samples' order: no aclrtDestroyStream
 *                           (the context is destroyed with its stream
 *                           live), one aclrtResetDevice for two
 *                           aclrtSetDevice (aclFinalize with the device
 *                           still set); the hardware answers success
 *
 * Exit status 0 and "resource_helper(<mode>): ok" when every call answered
 * as the hardware does.
 */
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <thread>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) ACL_APP_LOG(ACL_INFO, fmt, ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) ACL_APP_LOG(ACL_ERROR, fmt, ##__VA_ARGS__)

namespace {

int g_failures = 0;

bool Check(aclError ret, const char *what)
{
    if (ret == ACL_SUCCESS) {
        return true;
    }
    const char *msg = aclGetRecentErrMsg();
    ERROR_LOG("%s failed, ret %d", what, ret);
    std::fprintf(stderr, "%s returned %d: %s\n", what, ret, msg != nullptr ? msg : "(none)");
    ++g_failures;
    return false;
}

#define CHECK(expr) Check((expr), #expr)

class Resource {
public:
    explicit Resource(int32_t deviceId) : deviceId_(deviceId) {}
    Resource(const Resource &) = delete;
    Resource &operator=(const Resource &) = delete;

    bool Init()
    {
        if (!CHECK(aclInit(""))) {
            return false;
        }
        if (!CHECK(aclrtSetDevice(deviceId_)) ||
            !CHECK(aclrtCreateContext(&context_, deviceId_)) ||
            !CHECK(aclrtCreateStream(&stream_)) || !CHECK(aclrtGetRunMode(&runMode_))) {
            return false;
        }
        INFO_LOG("device %d ready, run mode %d", deviceId_, static_cast<int>(runMode_));
        return true;
    }

    /* What a second component (a model or media helper) does on its own;
     * setting a device makes its default context current, so the helper
     * makes its own context current again before using its stream. */
    bool SetDeviceAgain()
    {
        return CHECK(aclrtSetDevice(deviceId_)) && CHECK(aclrtSetCurrentContext(context_));
    }

    aclrtContext Context() const { return context_; }
    aclrtStream Stream() const { return stream_; }
    aclrtRunMode RunMode() const { return runMode_; }

    void ReleaseTidy()
    {
        CHECK(aclrtDestroyStream(stream_));
        CHECK(aclrtDestroyContext(context_));
        CHECK(aclrtResetDevice(deviceId_));
        CHECK(aclrtResetDevice(deviceId_));
        CHECK(aclFinalize());
        INFO_LOG("released in order");
    }

    void ReleaseAsTheSamplesDo()
    {
        /* No aclrtDestroyStream: the context goes with its stream. */
        CHECK(aclrtDestroyContext(context_));
        /* Set twice, reset once: the device is still set at finalize. */
        CHECK(aclrtResetDevice(deviceId_));
        CHECK(aclFinalize());
        INFO_LOG("released as the samples do");
    }

private:
    int32_t deviceId_;
    aclrtContext context_ = nullptr;
    aclrtStream stream_ = nullptr;
    aclrtRunMode runMode_ = ACL_HOST;
};

/* Float inputs converted to aclFloat16, copied to the device and back. */
bool HalfRoundTrip(aclrtStream stream)
{
    const size_t n = 2048;
    const size_t bytes = n * aclDataTypeSize(ACL_FLOAT16);
    if (bytes != n * sizeof(aclFloat16)) {
        std::fprintf(stderr, "aclDataTypeSize(ACL_FLOAT16) = %zu\n", aclDataTypeSize(ACL_FLOAT16));
        ++g_failures;
        return false;
    }
    void *in = nullptr;
    void *out = nullptr;
    void *dev = nullptr;
    if (!CHECK(aclrtMallocHost(&in, bytes)) || !CHECK(aclrtMallocHost(&out, bytes)) ||
        !CHECK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST))) {
        return false;
    }
    auto *h = static_cast<aclFloat16 *>(in);
    for (size_t i = 0; i < n; ++i) {
        h[i] = aclFloatToFloat16(0.5f * static_cast<float>(i));
    }
    std::memset(out, 0, bytes);
    CHECK(aclrtMemcpy(dev, bytes, in, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpyAsync(out, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK(aclrtSynchronizeStream(stream));
    const auto *back = static_cast<const aclFloat16 *>(out);
    int bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (aclFloat16ToFloat(back[i]) != 0.5f * static_cast<float>(i)) {
            ++bad;
        }
    }
    /* The runtime's saturating conversion. */
    if (aclFloatToFloat16(1e6f) != 0x7BFF || aclFloat16ToFloat(0x7C00) != 65536.0f) {
        ++bad;
    }
    CHECK(aclrtFree(dev));
    CHECK(aclrtFreeHost(in));
    CHECK(aclrtFreeHost(out));
    if (bad != 0) {
        std::fprintf(stderr, "%d half values differ\n", bad);
        ++g_failures;
        return false;
    }
    std::printf("half round trip: %zu values ok\n", n);
    return true;
}

/* Two 4 GiB device buffers, as a peer project's test allocates them. */
bool BigBuffers()
{
    const size_t big = size_t{4} << 30;
    size_t free0 = 0, total = 0, free1 = 0, total1 = 0;
    void *a = nullptr;
    void *b = nullptr;
    if (!CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total)) ||
        !CHECK(aclrtMalloc(&a, big, ACL_MEM_MALLOC_HUGE_FIRST)) ||
        !CHECK(aclrtMalloc(&b, big, ACL_MEM_MALLOC_HUGE_FIRST)) ||
        !CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total1))) {
        return false;
    }
    /* The last bytes of each buffer are usable. */
    unsigned char tail[64];
    for (void *p : {a, b}) {
        void *end = static_cast<unsigned char *>(p) + big - sizeof tail;
        std::memset(tail, 0, sizeof tail);
        CHECK(aclrtMemset(end, sizeof tail, 0x5a, sizeof tail));
        CHECK(aclrtMemcpy(tail, sizeof tail, end, sizeof tail, ACL_MEMCPY_DEVICE_TO_HOST));
        for (unsigned char c : tail) {
            if (c != 0x5a) {
                std::fprintf(stderr, "tail byte %#x\n", c);
                ++g_failures;
                break;
            }
        }
    }
    CHECK(aclrtFree(a));
    CHECK(aclrtFree(b));
    if (free0 - free1 < 2 * big) {
        std::fprintf(stderr, "free memory %zu -> %zu after 8 GiB\n", free0, free1);
        ++g_failures;
        return false;
    }
    INFO_LOG("two 4 GiB buffers of %zu bytes in all", total);
    std::printf("big buffers: 2 x 4 GiB of %zu GiB ok\n", total >> 30);
    return true;
}

std::atomic<int> g_callbacks{0};

void OnReport(void *userData)
{
    g_callbacks.fetch_add(*static_cast<int *>(userData));
}

/* A report thread as the asynchronous inference samples run one. */
bool CallbackThread(aclrtContext context, aclrtStream stream)
{
    std::atomic<bool> stop{false};
    std::thread worker([&stop, context] {
        if (aclrtSetCurrentContext(context) != ACL_SUCCESS) {
            return;
        }
        while (!stop.load()) {
            (void)aclrtProcessReport(20);
        }
    });
    const auto tid = static_cast<uint64_t>(worker.native_handle());
    bool ok = CHECK(aclrtSubscribeReport(tid, stream));
    int weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (int &w : weights) {
        ok = ok && CHECK(aclrtLaunchCallback(OnReport, &w, ACL_CALLBACK_BLOCK, stream));
    }
    ok = ok && CHECK(aclrtSynchronizeStream(stream));
    ok = CHECK(aclrtUnSubscribeReport(tid, stream)) && ok;
    stop.store(true);
    worker.join();
    if (g_callbacks.load() != 36) {
        std::fprintf(stderr, "callbacks added up to %d, expected 36\n", g_callbacks.load());
        ++g_failures;
        return false;
    }
    std::printf("callback thread: 8 callbacks ok\n");
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    const bool sloppy = argc > 1 && std::strcmp(argv[1], "sloppy") == 0;
    Resource res(0);
    if (res.Init() && res.SetDeviceAgain()) {
        std::printf("run mode: %s\n", res.RunMode() == ACL_HOST ? "ACL_HOST" : "ACL_DEVICE");
        HalfRoundTrip(res.Stream());
        BigBuffers();
        CallbackThread(res.Context(), res.Stream());
    }
    if (sloppy) {
        res.ReleaseAsTheSamplesDo();
    } else {
        res.ReleaseTidy();
    }
    if (g_failures != 0) {
        ERROR_LOG("resource_helper: %d failures", g_failures);
        return 1;
    }
    std::printf("resource_helper(%s): ok\n", sloppy ? "sloppy" : "tidy");
    return 0;
}
