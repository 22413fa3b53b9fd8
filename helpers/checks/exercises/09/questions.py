"""Notebook 09: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "09.q_patch_params": {
        "title": "the parameters of the patch embedding",
        "answer": 64 * 1 * 4 * 4 + 64,
        "wrong_numbers": {
            4
            * (64 * 16 + 64): "the patches share one kernel (a convolution slides the same weights "
            "over the image): the count does not depend on the number of patches.",
            64 * 64 + 64: "a kernel of 8 x 8 = 64 pixels would cover the whole image: the kernel "
            "covers one patch, 4 x 4 pixels of 1 channel.",
            64 * 16: "that is the weight alone, (d_model, C, p, p) = (64, 1, 4, 4): the Conv2d has "
            "a bias of d_model = 64 numbers too.",
            5 * 64: "that is the size of pos_embed, (N + 1) x d_model: the question asks for the "
            "Conv2d's weight and bias.",
        },
        "explanation": (
            "1,088: a Conv2d(1, 64, kernel_size=4, stride=4) holds one (C, p, p) = (1, 4, 4) "
            "kernel "
            "per output feature, 64 x 16 = 1,024 weights, plus 64 biases. The same kernel is used "
            "for every patch, so the count does not grow with the image: a 224 x 224 RGB image "
            "with "
            "p = 16 and d_model = 768 (ViT-Base) needs 768 x 3 x 16 x 16 + 768 = 590,592, whatever "
            "the number of patches."
        ),
    },
    "09.q_baselines": {
        "title": "the ViT against the baselines on 1,437 digits",
        "answer": "c",
        "choices": {
            "a": "attention does see every patch at once, but that is no advantage here: after two "
            "3 x 3 convolutions and a linear layer on the pooled map the CNN also combines the "
            "whole "
            "8 x 8 image. What decides on 1,437 images is what each model must learn from them.",
            "b": "more parameters do not help a model that has to learn from 1,437 images what "
            "another model assumes: the ViT's 69,194 numbers include position embeddings and "
            "attention weights that have to be fitted from those images, which a CNN gets for free "
            "from its architecture.",
            "c": "",
            "d": "logistic regression is a linear model on the 64 pixels: it does well on these "
            "clean, centred digits (above 0.95), but a linear boundary cannot follow all the ways "
            "a "
            "digit is written, and models that can (the SVM, the CNN) do better.",
        },
        "explanation": (
            "the small CNN: its convolutions assume that nearby pixels belong together and that a "
            "stroke means the same anywhere in the image (locality and translation equivariance). "
            "The ViT assumes neither: it must learn where each patch is (its position embeddings) "
            "and which patches go together (its attention) from the 1,437 training images. With so "
            "few images that inductive bias wins; the ViT paper needed 14 M to 300 M images of "
            "pre-training for ViT to overtake ResNets."
        ),
    },
}
