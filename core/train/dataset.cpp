// Loading the four IDX files of an MNIST-layout data set: see dataset.h.
#include "dataset.h"

#include <sys/stat.h>

#include "io/image_io.h"
#include "idx.h"

namespace gpulab::train {

namespace {

using core::InputError;

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string missing_fix(const std::string& folder) {
    return folder == kFashionMnistDir
               ? "install it with `sudo apt-get install dataset-fashion-mnist`, or pass --data DIR"
               : "pass --data a folder holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
                 "t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (gzipped or not)";
}

ImageSet load_pair(const std::string& folder, const std::string& prefix, std::int64_t limit) {
    const std::string images_path = find_idx_file(folder, prefix + "-images-idx3-ubyte");
    const std::string labels_path = find_idx_file(folder, prefix + "-labels-idx1-ubyte");
    for (const auto& [path, stem] : {std::pair{images_path, prefix + "-images-idx3-ubyte"},
                                     std::pair{labels_path, prefix + "-labels-idx1-ubyte"}})
        if (path.empty())
            throw InputError("no " + stem + "[.gz] in " + folder + ": " + missing_fix(folder));
    IdxImages images = read_idx_images(images_path);
    std::vector<std::uint8_t> labels = read_idx_labels(labels_path);
    if (static_cast<std::int64_t>(labels.size()) != images.count)
        throw InputError(labels_path + " holds " + std::to_string(labels.size()) + " labels but " + images_path +
                         " holds " + std::to_string(images.count) + " images; use the two files of one data set");
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] >= 10)
            throw InputError(labels_path + ": label " + std::to_string(i) + " is " + std::to_string(labels[i]) +
                             ", but gpulab's models have 10 classes (0..9); use a 10-class data set");
    ImageSet set;
    set.count = limit > 0 && limit < images.count ? limit : images.count;
    set.rows = images.rows;
    set.cols = images.cols;
    images.pixels.resize(static_cast<std::size_t>(set.count * set.rows * set.cols));
    labels.resize(static_cast<std::size_t>(set.count));
    set.pixels = std::move(images.pixels);
    set.labels = std::move(labels);
    return set;
}

}  // namespace

const char* fashion_mnist_class_name(int label) {
    static const char* const names[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
    return label >= 0 && label < 10 ? names[label] : "?";
}

std::string find_idx_file(const std::string& folder, const std::string& stem) {
    for (const std::string& path : {folder + "/" + stem + ".gz", folder + "/" + stem})
        if (exists(path)) return path;
    return "";
}

Dataset load_dataset(const std::string& folder, std::int64_t limit) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0)
        throw InputError("no data set at " + folder + ": " + missing_fix(folder));
    if (!S_ISDIR(st.st_mode)) throw InputError(folder + " is not a folder: " + missing_fix(folder));
    Dataset d;
    d.folder = folder;
    d.train = load_pair(folder, "train", limit);
    d.test = load_pair(folder, "t10k", limit);
    if (d.train.rows != d.test.rows || d.train.cols != d.test.cols)
        throw InputError(folder + ": training images are " + std::to_string(d.train.rows) + "x" +
                         std::to_string(d.train.cols) + " but test images " + std::to_string(d.test.rows) + "x" +
                         std::to_string(d.test.cols) + "; use the files of one data set");
    return d;
}

}  // namespace gpulab::train
